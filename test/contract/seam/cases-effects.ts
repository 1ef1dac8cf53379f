/** The seam's promises about what a program does itself, past the host: its denials, its staged writes. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { answer, type SeamCase, same, parsedValue } from './context.js'
import { never, recordingHost, request } from './programs.js'

export const effectCases: SeamCase[] = [
  {
    name: 'a denial the program caught is still reported in denials',
    offered: (c) => c.programWrites,
    async check(ctx) {
      const body = `const fs = require('node:fs')
        try { fs.writeFileSync('locked/planted.txt', 'x'); return 'written' } catch (e) { return e.code }`
      const got = await answer(ctx.sandbox, await request(body), recordingHost(), never())
      if (got.problem !== undefined) return [got.problem]
      const { value, problems } = parsedValue(got.outcome)
      problems.push(...same('what the program caught', value, 'EROFS'))
      problems.push(
        ...same(
          'denials',
          got.outcome.denials?.map((d) => d.code),
          ['EROFS'],
        ),
      )
      if (fs.existsSync(path.join(ctx.workspace, 'locked', 'planted.txt'))) problems.push('the read-only folder was written')
      return problems
    },
  },
  {
    name: 'a staged run writes only its stage, and settles',
    offered: (c) => c.stagesItself,
    async check(ctx) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-seam-stage-'))
      const stage = { upper: path.join(dir, 'upper'), work: path.join(dir, 'work') }
      for (const d of Object.values(stage)) fs.mkdirSync(d)
      const req = await request(`const fs = require('node:fs')
        fs.writeFileSync('staged.txt', 'in the stage')
        return fs.readFileSync('staged.txt', 'utf8')`)
      const handle = ctx.sandbox.stageRun?.(req.runId, stage)
      if (handle === undefined || typeof handle === 'string') return [`stageRun refused: ${handle}`]
      const got = await answer(ctx.sandbox, req, recordingHost(), never())
      const problems = got.problem !== undefined ? [got.problem] : parsedValue(got.outcome).problems
      if (got.outcome) problems.push(...same('what the program read back', parsedValue(got.outcome).value, 'in the stage'))
      problems.push(...same('settled', await handle.settled(), true))
      if (fs.existsSync(path.join(ctx.workspace, 'staged.txt'))) problems.push('the real workspace was written')
      const upper = path.join(stage.upper, 'staged.txt')
      problems.push(...same('the stage holds the write', fs.existsSync(upper) && fs.readFileSync(upper, 'utf8'), 'in the stage'))
      fs.rmSync(dir, { recursive: true, force: true })
      return problems
    },
  },
]
