// Workspace ops served inside the container (the WorkspaceOps seam of sandbox/workspace/ops.ts), on the
// mounted workspace. Paths arrive already translated to container paths and already checked by the host's
// policy; they are re-checked here at the point of use (a path may have become a symlink since).
// The fs functions are captured at load, before the runner instruments `fs` for the program's denials:
// an op's refusal is the tool's result, not a denial of the program.
import fs from 'node:fs'
import childProcess from 'node:child_process'
import path from 'node:path'

const { readFile, writeFile, mkdir, rm, rmdir, unlink, readdir, lstat, realpath, open } = fs.promises
const PASS = new Set(['ENOENT', 'EEXIST', 'EISDIR', 'ENOTDIR', 'ENOTEMPTY', 'EACCES', 'EROFS', 'EPERM', 'EFBIG', 'EILSEQ', 'ENOSPC', 'EDQUOT'])
const spawn = childProcess.spawn // captured: the runner later wraps the module's functions
const existsSync = fs.existsSync
const running = new Map() // op id -> kill function of an exec

function fail(code, message) {
  const e = new Error(message)
  e.code = code
  return e
}
// Captured: a program can reach this realm through Node and replace them; the containment check must hold.
const ReflectApply = Reflect.apply
const startsWith = String.prototype.startsWith
const endsWith = String.prototype.endsWith
const promiseThen = Promise.prototype.then
const PromiseCtor = Promise
function within(root, p) {
  const prefix = ReflectApply(endsWith, root, ['/']) ? root : root + '/'
  return p === root || ReflectApply(startsWith, p, [prefix])
}
/** The real path of `p` (or of its nearest existing ancestor) must stay inside the root. */
async function checkInside(root, p) {
  let probe = p
  for (;;) {
    try {
      const real = await realpath(probe)
      if (!within(root, real)) throw fail('EACCES', `${p}: resolves outside the workspace`)
      return
    } catch (e) {
      if (e.code !== 'ENOENT' || probe === root || probe === '/') throw e
      probe = path.dirname(probe)
    }
  }
}
function typeOf(st) {
  return st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other'
}

const decoder = new TextDecoder('utf-8', { fatal: true })
const ops = {
  async readFile(root, [p, maxBytes]) {
    await checkInside(root, p)
    const handle = await open(p, 'r')
    try {
      const st = await handle.stat()
      if (st.isDirectory()) throw fail('EISDIR', `${p}: is a folder`)
      if (st.size > maxBytes) throw fail('EFBIG', `${p}: ${st.size} bytes is over the read cap of ${maxBytes}`)
      const buf = await handle.readFile()
      if (buf.length > maxBytes) throw fail('EFBIG', `${p}: over the read cap of ${maxBytes} bytes`)
      if (buf.includes(0)) throw fail('EILSEQ', `${p}: binary content`)
      try {
        return decoder.decode(buf)
      } catch {
        throw fail('EILSEQ', `${p}: not UTF-8 text`)
      }
    } finally {
      await handle.close()
    }
  },
  async writeFile(root, [p, content]) {
    await checkInside(root, p)
    await mkdir(path.dirname(p), { recursive: true })
    await checkInside(root, p)
    await writeFile(p, String(content), 'utf8')
  },
  async mkdir(root, [p]) {
    await checkInside(root, p)
    try {
      await mkdir(p, { recursive: true })
    } catch (e) {
      if (e.code === 'EEXIST' || e.code === 'ENOTDIR') throw fail('EEXIST', `${p}: exists and is not a folder`)
      throw e
    }
  },
  async remove(root, [p, recursive]) {
    if (path.resolve(p) === root) throw fail('EPERM', 'the workspace root cannot be removed')
    await checkInside(root, path.dirname(p))
    const st = await lstat(p)
    if (!st.isDirectory()) return unlink(p)
    return recursive ? rm(p, { recursive: true }) : rmdir(p)
  },
  async readdir(root, [p]) {
    await checkInside(root, p)
    const names = (await readdir(p)).sort()
    const out = []
    for (const name of names) {
      const st = await lstat(path.join(p, name))
      out.push({ name, type: typeOf(st), size: st.isDirectory() ? 0 : st.size })
    }
    return out
  },
  async stat(root, [p]) {
    await checkInside(root, path.dirname(p))
    const st = await lstat(p)
    return { type: typeOf(st), size: st.isDirectory() ? 0 : st.size, mtimeMs: st.mtimeMs, mode: st.mode & 0o7777 }
  },
  async walk(root, [p, limit]) {
    await checkInside(root, p)
    const entries = []
    async function visit(dir, prefix) {
      for (const name of (await readdir(dir)).sort()) {
        if (entries.length >= limit) return true
        const st = await lstat(path.join(dir, name))
        const rel = prefix ? prefix + '/' + name : name
        entries.push({ path: rel, type: typeOf(st) })
        if (st.isDirectory() && (await visit(path.join(dir, name), rel))) return true
      }
      return false
    }
    const truncated = await visit(p, '')
    return { entries, truncated }
  },
  exec(root, [request], id) {
    return new Promise((resolve, reject) => {
      const { command, cwd, timeoutMs, maxOutputBytes } = request
      let child
      try {
        child = spawn('/bin/sh', ['-c', String(command)], {
          cwd,
          detached: true, // its own process group, so a kill reaches everything it started
          env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8' },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      } catch (e) {
        return reject(e)
      }
      const streams = { stdout: [], stderr: [] }
      const sizes = { stdout: 0, stderr: 0 }
      let truncated = false
      let timedOut = false
      const kill = () => { try { process.kill(-child.pid, 'SIGKILL') } catch { /* already gone */ } }
      running.set(id, kill)
      for (const name of ['stdout', 'stderr']) {
        child[name].on('data', (chunk) => {
          const room = maxOutputBytes - sizes[name]
          if (chunk.length > room) truncated = true
          if (room > 0) streams[name].push(chunk.subarray(0, room))
          sizes[name] += Math.min(room > 0 ? room : 0, chunk.length)
        })
      }
      const timer = setTimeout(() => { timedOut = true; kill() }, timeoutMs)
      child.on('error', (e) => {
        clearTimeout(timer)
        running.delete(id)
        reject(e.code === 'ENOENT' && !existsSync('/bin/sh') ? fail('SANDBOX_UNAVAILABLE', 'the runner image has no /bin/sh') : e)
      })
      child.on('close', (exitCode, signal) => {
        clearTimeout(timer)
        running.delete(id)
        const stdout = Buffer.concat(streams.stdout).toString('utf8')
        const stderr = Buffer.concat(streams.stderr).toString('utf8')
        const result = { stdout, stderr, exitCode, signal, timedOut, truncated }
        const m = /^.*(Read-only file system|Permission denied|Operation not permitted).*$/m.exec(stderr)
        if (m) {
          result.denied = m[1] === 'Read-only file system' ? 'EROFS' : m[1] === 'Permission denied' ? 'EACCES' : 'EPERM'
          result.deniedMessage = m[0].slice(0, 500)
        }
        resolve(result)
      })
    })
  },
}

export function cancelOp(id) {
  const kill = running.get(id)
  if (kill) kill()
}

export function serveOp(msg, send) {
  const op = Object.hasOwn(ops, msg.op) ? ops[msg.op] : undefined
  if (!op) return send({ type: 'opResult', id: msg.id, ok: false, error: { code: 'EIO', message: 'unknown op' } })
  const args = Array.isArray(msg.args) ? msg.args : []
  const started = new PromiseCtor((resolve) => resolve(op(String(msg.root), args, msg.id)))
  ReflectApply(promiseThen, started, [
    (value) => send({ type: 'opResult', id: msg.id, ok: true, value: value === undefined ? null : value }),
    (e) => {
      const code = e && PASS.has(e.code) ? e.code : e && e.code === 'SANDBOX_UNAVAILABLE' ? e.code : 'EIO'
      send({ type: 'opResult', id: msg.id, ok: false, error: { code, message: String((e && e.message) || e).slice(0, 1000) } })
    },
  ])
}
