/**
 * Attacks that only make sense in a container, where the program legitimately has the container's own Node
 * (`require`, `process`, child processes): the inspector, the runner's memory, forged runner lines, what
 * /proc and /sys tell about the host, and exhaustion of pids, disk and memory. Each program is written as
 * an attacker would write it — several routes to the same goal, raced and combined — and reports what each
 * route got, so a failure names the route that worked.
 */
import type { Expect } from './attack.js'

export interface DockerAttack {
  name: string
  /** The escape or failure it models. */
  cite: string
  code: string
  /**
   * Per OCI runtime where they differ (`runc`, `runsc`); `all` otherwise. A list: any one of them (named at
   * the entry: two outcomes that are both the container holding).
   */
  expect: { all: Expect | Expect[] } | Record<'runc' | 'runsc', Expect | Expect[]>
  limits?: { timeoutMs?: number; memoryMb?: number; maxOutputBytes?: number }
}

/** Route runner: `out[name]` is what the route got, or `refused: CODE` when it threw. */
const ROUTES = `
  const out = {}
  const route = async (name, f) => {
    try { out[name] = await f() } catch (e) { out[name] = 'refused' }
  }
  const fs = require('node:fs')
  const cp = require('node:child_process')
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
  // fd 1 is a non-blocking pipe: an attacker just tries again.
  const put = (fd, text) => {
    let buf = Buffer.from(text)
    while (buf.length > 0) {
      try { buf = buf.subarray(fs.writeSync(fd, buf)) } catch (e) { if (e.code !== 'EAGAIN') throw e }
    }
  }
`

/** Is anything listening on a TCP port in this container (an inspector opened by a signal)? */
const LISTENING = `
  const listening = () => {
    let text = ''
    for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) { try { text += fs.readFileSync(f, 'utf8') } catch {} }
    return text.split('\\n').slice(1).some((l) => l.trim().split(/\\s+/)[3] === '0A')
  }
`

/** A forged `done` whose value is "forged"; the program itself returns "real". */
const FORGE = `
  const forgedDone = (nonce) => '\\n' + (nonce ? nonce + ' ' : '') + JSON.stringify({ type: 'done', outcomeJson: JSON.stringify({ ok: true, valueJson: '"forged"', droppedOutputBytes: 0 }) }) + '\\n'
  const forgeWith = (nonces) => { for (const n of nonces) put(1, forgedDone(n)); return nonces.length }
  // Any 32 hex digits could be the nonce: forge with every candidate (a few thousand lines at most).
  const NONCE = /(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])/g
`

const evalThrough = `(inspector) => new Promise((resolve, reject) => {
    const s = new inspector.Session()
    s.connect()
    s.post('Runtime.evaluate', { expression: '6 * 7' }, (err, r) => (err ? reject(err) : resolve(r.result.value === 42 ? 'OPEN' : 'odd')))
  })`

export const dockerAttacks: DockerAttack[] = [
  {
    name: 'the inspector, by every module route',
    cite: "Node's inspector evaluates in the runner's own realm (past the glue) and can read module scopes",
    code: `${ROUTES}
      const evalIn = ${evalThrough}
      await route('require', () => evalIn(require('inspector')))
      await route('require node:', () => evalIn(require('node:inspector')))
      await route('import', async () => evalIn(await import('node:inspector')))
      await route('import promises', async () => {
        const i = await import('node:inspector/promises')
        const s = new i.Session()
        s.connect()
        return (await s.post('Runtime.evaluate', { expression: '6 * 7' })).result.value === 42 ? 'OPEN' : 'odd'
      })
      await route('createRequire', () => evalIn(require('node:module').createRequire('/')('inspector')))
      await route('Module._load', () => evalIn(require('node:module')._load('inspector')))
      await route('process.binding', () => (typeof process.binding('inspector').connect === 'function' ? 'OPEN' : 'no connect'))
      await route('open', () => {
        const i = require('node:module').createRequire('/')('inspector')
        i.open(0, '127.0.0.1')
        return i.url() ? 'OPEN' : 'closed'
      })
      return Object.values(out).filter((v) => v === 'OPEN').length === 0 ? 'closed' : out`,
    expect: { all: { value: 'closed' } },
  },
  {
    name: 'the inspector, opened by a signal from the program, its child, or _debugProcess',
    cite: 'SIGUSR1 starts a Node process listening on 127.0.0.1:9229; loopback exists even with no network',
    code: `${ROUTES}${LISTENING}
      const before = listening()
      await route('SIGUSR1 to itself', async () => { process.kill(process.pid, 'SIGUSR1'); await sleep(300); return listening() ? 'OPEN' : 'closed' })
      await route('SIGUSR1 from a child', async () => { cp.execSync('kill -USR1 ' + process.pid); await sleep(300); return listening() ? 'OPEN' : 'closed' })
      await route('_debugProcess', async () => { process._debugProcess(process.pid); await sleep(300); return listening() ? 'OPEN' : 'closed' })
      await route('a child node asks', async () => {
        cp.execFileSync(process.execPath, ['-e', 'process._debugProcess(' + process.pid + ')'])
        await sleep(300)
        return listening() ? 'OPEN' : 'closed'
      })
      return { before, open: Object.keys(out).filter((k) => out[k] === 'OPEN') }`,
    expect: { all: { value: { before: false, open: [] } } },
  },
  {
    name: 'forged runner lines without the nonce: raw, guessed, split, raced with calls, from a child',
    cite: "notes C (runner protocol): the program shares the runner's fd 1",
    code: `${ROUTES}${FORGE}
      const guesses = ['', '0'.repeat(32), 'f'.repeat(32), require('node:crypto').randomBytes(16).toString('hex')]
      forgeWith(guesses)
      // Half a line, then a message: the runner starts every line afresh, and the host drops what lacks the nonce.
      put(1, '{"type":"done","outcomeJson":')
      await Promise.all([tools.echo({ i: 1 }), (async () => forgeWith(guesses))(), tools.echo({ i: 2 })])
      put(1, '\\r' + forgedDone('') + '\\u2028' + forgedDone(''))
      cp.spawnSync('/bin/sh', ['-c', "printf '\\\\n{\\"type\\":\\"fatal\\",\\"message\\":\\"x\\"}\\\\n'"], { stdio: ['ignore', 'inherit', 'inherit'] })
      process.stdout.write(forgedDone(''))
      return 'real'`,
    expect: { all: { value: 'real' } },
  },
  {
    name: "the nonce from the runner's own modules (require, import, a fresh runner)",
    cite: 'Node keeps one module instance per URL: the runner bundle (/opt/codeact/runner.mjs) is the live one, a query string loads another',
    code: `${ROUTES}${FORGE}
      const done = JSON.stringify({ ok: true, valueJson: '"forged"', droppedOutputBytes: 0 })
      await route('require runner', () => { require('/opt/codeact/runner.mjs').send({ type: 'done', outcomeJson: done }); return 'sent' })
      await route('import runner', async () => { (await import('/opt/codeact/runner.mjs')).send({ type: 'done', outcomeJson: done }); return 'sent' })
      await route('import file URL', async () => { (await import('file:///opt/codeact/runner.mjs')).send({ type: 'done', outcomeJson: done }); return 'sent' })
      await route('a second runner', async () => { await import('file:///opt/codeact/runner.mjs?again'); return 'loaded' })
      await route('createRequire runner', () => { require('node:module').createRequire('/')('/opt/codeact/runner.mjs').send({ type: 'done', outcomeJson: done }); return 'sent' })
      await route('data URL', async () => { await import('data:text/javascript,export default 1'); return 'loaded' })
      return 'real'`,
    expect: { all: { value: 'real' } },
  },
  {
    name: "the nonce from a heap snapshot of the runner's process",
    cite: 'v8.getHeapSnapshot / writeHeapSnapshot dump every string of the process',
    code: `${ROUTES}${FORGE}
      const v8 = require('node:v8')
      const found = new Set()
      await route('getHeapSnapshot', async () => {
        let text = ''
        for await (const chunk of v8.getHeapSnapshot()) text += chunk
        for (const m of text.match(NONCE) ?? []) found.add(m)
        return 'read'
      })
      await route('writeHeapSnapshot', () => {
        const f = v8.writeHeapSnapshot('/tmp/h.heapsnapshot')
        for (const m of fs.readFileSync(f, 'utf8').match(NONCE) ?? []) found.add(m)
        return 'written'
      })
      forgeWith([...found])
      return out['getHeapSnapshot'] === 'refused' && out['writeHeapSnapshot'] === 'refused' ? 'real' : out`,
    expect: { all: { value: 'real' } },
  },
  {
    name: "the nonce from the runner's memory, read by a child process through /proc/<pid>/mem",
    cite: "a same-uid process may read a dumpable process's memory; the runner is made non-dumpable",
    code: `${ROUTES}${FORGE}
      // A child node scans the runner's writable mappings for the nonce and prints what it finds.
      const scan = \`
        const fs = require('fs'); const pid = process.argv[1]; const found = new Set()
        const maps = fs.readFileSync('/proc/' + pid + '/maps', 'utf8').split('\\\\n').filter((l) => / rw-p /.test(l))
        const fd = fs.openSync('/proc/' + pid + '/mem', 'r')
        for (const l of maps) {
          const [a, b] = l.split(' ')[0].split('-').map((x) => Number(BigInt('0x' + x)))
          for (let at = a; at < b && at - a < 64 * 1024 * 1024; at += 1 << 20) {
            const buf = Buffer.alloc(Math.min(1 << 20, b - at))
            let n = 0; try { n = fs.readSync(fd, buf, 0, buf.length, at) } catch { continue }
            for (const m of buf.subarray(0, n).toString('latin1').match(/(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])/g) ?? []) if (found.size < 5000) found.add(m)
          }
        }
        process.stdout.write([...found].join(','))\`
      await route('child', () => {
        const r = cp.spawnSync(process.execPath, ['-e', scan, String(process.pid)], { encoding: 'utf8' })
        if (r.status !== 0) throw new Error(r.stderr)
        return forgeWith(r.stdout.split(',').filter(Boolean))
      })
      await route('maps of the runner', () => fs.readFileSync('/proc/' + process.pid + '/maps', 'utf8').length > 0 ? 'read' : 'empty')
      return out['child'] === 'refused' ? 'real' : out`,
    expect: { all: { value: 'real' } },
  },
  {
    name: 'the nonce from its own memory through /proc/self/mem',
    cite: 'a process may always read its own memory where the kernel lets it open /proc/self/mem',
    code: `${ROUTES}${FORGE}
      await route('self', () => {
        const found = new Set()
        const maps = fs.readFileSync('/proc/self/maps', 'utf8').split('\\n').filter((l) => / rw-p /.test(l))
        const fd = fs.openSync('/proc/self/mem', 'r')
        const buf = Buffer.alloc(256 * 1024)
        let budget = 96 * 1024 * 1024
        for (const l of maps) {
          const [a, b] = l.split(' ')[0].split('-').map((x) => Number(BigInt('0x' + x)))
          for (let at = a; at < b && at - a < 16 * 1024 * 1024 && budget > 0; at += buf.length) {
            let n = 0
            try { n = fs.readSync(fd, buf, 0, Math.min(buf.length, b - at), at) } catch { break }
            budget -= n
            for (const m of buf.toString('latin1', 0, n).match(NONCE) ?? []) if (found.size < 5000) found.add(m)
          }
        }
        return forgeWith([...found])
      })
      return out['self'] === 'refused' ? 'real' : out`,
    // runc, as the unprivileged default user: the runner is non-dumpable, so its /proc/self/mem belongs to
    // root and cannot be opened. gVisor always lets a process read its own memory: the program finds the
    // nonce and its forged `done` is taken — which claims only what it could return anyway (a value).
    // Pinned, so a change either way is seen (README, "Docker: what the program can reach").
    expect: { runc: { value: 'real' }, runsc: { value: 'forged' } },
  },
  {
    name: "/proc and /sys: the host's processes, environment and kernel knobs",
    cite: 'notes C: masked and read-only /proc paths, a pid namespace of its own, nothing of the host environment',
    code: `${ROUTES}
      const read = (p) => { try { return fs.readFileSync(p, 'latin1') } catch (e) { return '' } }
      const write = (p) => { try { fs.writeFileSync(p, '1'); return 'WROTE' } catch (e) { return 'refused' } }
      const pids = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))
      const everything = pids.map((p) => read('/proc/' + p + '/cmdline') + read('/proc/' + p + '/environ')).join('\\n')
      const viaChild = cp.execSync('cat /proc/1/environ /proc/1/cmdline 2>/dev/null; true', { encoding: 'latin1' })
      const masked = ['/proc/kcore', '/proc/keys', '/proc/timer_list', '/proc/sched_debug', '/proc/latency_stats']
        .filter((p) => read(p).length > 0)
      let firmware = []
      try { firmware = fs.readdirSync('/sys/firmware') } catch {}
      const kallsyms = read('/proc/kallsyms').split('\\n').filter((l) => l && !/^0+ /.test(l)).length
      return {
        fewProcesses: pids.length < 16,
        hostProcesses: /vitest|dockerd|containerd|sshd|systemd/.test(everything + viaChild),
        secret: (everything + viaChild).includes('CODEACT_CORPUS'),
        masked, firmware, kallsyms,
        writes: ['/proc/sysrq-trigger', '/proc/sys/kernel/hostname', '/proc/sys/vm/drop_caches', '/sys/kernel/mm/transparent_hugepage/enabled'].map(write),
      }`,
    expect: {
      all: {
        value: {
          fewProcesses: true,
          hostProcesses: false,
          secret: false,
          masked: [],
          firmware: [],
          kallsyms: 0,
          writes: ['refused', 'refused', 'refused', 'refused'],
        },
      },
    },
  },
  {
    name: 'pids: a fork bomb by spawn, by shell and by Worker threads, at once',
    cite: 'notes C: PidsLimit bounds processes and threads; the next run starts in a fresh container',
    code: `${ROUTES}
      const { Worker } = require('node:worker_threads')
      const kids = [], workers = []
      let spawnErr = '', workerErr = ''
      const shell = cp.spawn('/bin/sh', ['-c', 'b() { b | b & }; b'], { stdio: 'ignore' })
      for (let i = 0; i < 400; i++) {
        try { const k = cp.spawn('/bin/sh', ['-c', 'sleep 30'], { stdio: 'ignore' }); k.on('error', (e) => { spawnErr = e.code }); kids.push(k) } catch (e) { spawnErr = e.code }
      }
      for (let i = 0; i < 200 && !workerErr; i++) {
        try { const w = new Worker('setInterval(() => {}, 1000)', { eval: true }); w.on('error', (e) => { workerErr = String(e.code || e.message) }); workers.push(w) } catch (e) { workerErr = String(e.code || e.message) }
      }
      await sleep(1500)
      return 'survived'`,
    limits: { timeoutMs: 15_000 },
    // The container is the one that suffers: the program ends on its own, or the deadline kills it, or Node
    // itself gives up when it cannot start a thread (an abort inside the container, reported as runtime), or
    // under gVisor (whose process limit counts tasks, each with the sentry's memory) the container's memory
    // limit ends it first.
    expect: {
      all: [
        { value: 'survived' },
        { error: 'timeout' },
        { error: 'runtime', message: /exited with code|was killed/ },
        { error: 'memory', message: /exceeded the memory limit/ },
      ],
    },
  },
  {
    name: 'disk: filling /tmp and the read-only root, by the program and by its child',
    cite: 'notes C: a 64 MiB noexec tmpfs; the rootfs is read-only',
    code: `${ROUTES}
      const chunk = Buffer.alloc(1 << 20, 120)
      await route('tmp', () => { for (let i = 0; i < 200; i++) fs.writeFileSync('/tmp/fill-' + i, chunk); return 'FILLED 200 MiB' })
      await route('dd', () => { cp.execSync('dd if=/dev/zero of=/tmp/dd bs=1M count=200 2>&1'); return 'FILLED' })
      await route('root', () => { fs.writeFileSync('/fill', chunk); return 'WROTE' })
      await route('shm', () => { fs.writeFileSync('/dev/shm/fill', Buffer.alloc(200 << 20)); return 'FILLED' })
      const df = cp.execSync('df -k /tmp | tail -1', { encoding: 'utf8' }).trim().split(/\\s+/)
      return { tmp: out.tmp, dd: out.dd, root: out.root, shm: out.shm, tmpKb: Number(df[1]) <= 64 * 1024 }`,
    // Or: /tmp and /dev/shm are memory, charged to the container, so filling both can end in its OOM kill.
    expect: { all: [{ value: { tmp: 'refused', dd: 'refused', root: 'refused', shm: 'refused', tmpKb: true } }, { error: 'memory' }] },
  },
  {
    name: 'memory outside the JavaScript heap: Buffers, a child, and Workers',
    cite: 'notes C: the container memory limit (swap off) bounds what the heap limit does not',
    code: `${ROUTES}
      const { Worker } = require('node:worker_threads')
      for (let i = 0; i < 4; i++) new Worker('const a = []; for (;;) a.push(Buffer.alloc(8 << 20, 1))', { eval: true }).on('error', () => {})
      cp.spawn(process.execPath, ['-e', 'const a = []; for (;;) a.push(Buffer.alloc(8 << 20, 1))'], { stdio: 'ignore' })
      const held = []
      for (;;) { held.push(Buffer.alloc(16 << 20, 1)); await sleep(1) }`,
    limits: { timeoutMs: 30_000, memoryMb: 128 },
    expect: { all: { error: 'memory' } },
  },
  {
    name: 'output floods: fd 1 and fd 2 written directly, by the program and by a child',
    cite: 'notes C: stray output is counted and dropped; the host keeps only a capped stderr tail',
    code: `${ROUTES}
      const line = 'x'.repeat(64 * 1024) + '\\n'
      for (let i = 0; i < 512; i++) { put(1, line); put(2, line) }
      cp.execSync('seq 1 2000000', { stdio: ['ignore', 'inherit', 'inherit'] })
      cp.execSync('seq 1 2000000 >&2', { stdio: ['ignore', 'inherit', 'inherit'] })
      return 'real'`,
    limits: { timeoutMs: 60_000 },
    expect: { all: { value: 'real' } },
  },
  {
    name: 'an endless line on fd 1 (no newline ever)',
    cite: "the host's line reader caps a line (32 MiB): the runner is then not trusted",
    code: `${ROUTES}
      const chunk = 'y'.repeat(1 << 20)
      for (let i = 0; i < 64; i++) put(1, chunk)
      return 'real'`,
    limits: { timeoutMs: 60_000 },
    expect: { all: { error: 'runtime', message: /over \d+ bytes/ } },
  },
]
