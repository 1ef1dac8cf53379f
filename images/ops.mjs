// Workspace ops served inside the container (the WorkspaceOps seam of sandbox/workspace/ops.ts), on the
// mounted workspace. Paths arrive already translated to container paths and already checked by the host's
// policy. Like the host's ops (sandbox/workspace/beneath.ts) every path is walked from the root one
// component at a time by descriptor: each folder opened O_NOFOLLOW | O_DIRECTORY through its parent's
// /proc/self/fd entry, the last step naming one entry of the last opened folder. A component that is — or
// has just become — a symlink is refused (EACCES), never followed, so no swap between the host's check and
// this use reaches outside the workspace. Messages name paths workspace-relative.
// The fs functions are captured at load, before the runner instruments `fs` for the program's denials:
// an op's refusal is the tool's result, not a denial of the program.
import fs from 'node:fs'
import childProcess from 'node:child_process'
import crypto from 'node:crypto'

const { open, lstat, readdir, rename, rmdir, unlink } = fs.promises
const { openSync, closeSync, mkdirSync, lstatSync } = fs
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW
const randomBytes = crypto.randomBytes
const PASS = new Set([
  'ENOENT',
  'EEXIST',
  'EISDIR',
  'ENOTDIR',
  'ENOTEMPTY',
  'EACCES',
  'EROFS',
  'EPERM',
  'EFBIG',
  'EILSEQ',
  'ENOSPC',
  'EDQUOT',
])
const spawn = childProcess.spawn // captured: the runner later wraps the module's functions
const existsSync = fs.existsSync
const running = new Map() // op id -> kill function of an exec

function fail(code, message) {
  const e = new Error(message)
  e.code = code
  return e
}
// Captured: a program can reach this realm through Node and replace them; the walk must hold.
const ReflectApply = Reflect.apply
const startsWith = String.prototype.startsWith
const split = String.prototype.split
const sliceStr = String.prototype.slice
const promiseThen = Promise.prototype.then
const PromiseCtor = Promise
const sortArray = Array.prototype.sort

/** The workspace-relative components of a container path; EACCES for anything outside or climbing. */
function partsOf(root, p) {
  p = String(p)
  let rest
  if (p === root) rest = ''
  else if (ReflectApply(startsWith, p, [root + '/'])) rest = ReflectApply(sliceStr, p, [root.length + 1])
  else throw fail('EACCES', 'the path is outside the workspace')
  const raw = ReflectApply(split, rest, ['/'])
  const parts = []
  for (let i = 0; i < raw.length; i++) {
    const name = raw[i]
    if (name === '' || name === '.') continue
    if (name === '..' || name.indexOf('\0') !== -1) throw fail('EACCES', 'the path climbs out of the workspace')
    parts[parts.length] = name
  }
  return parts
}
function relOf(parts, n = parts.length) {
  let rel = ''
  for (let i = 0; i < n; i++) rel = i === 0 ? parts[i] : rel + '/' + parts[i]
  return rel === '' ? '.' : rel
}
const at = (fd, name) => '/proc/self/fd/' + fd + '/' + name
const self = (fd) => '/proc/self/fd/' + fd
function closeQuiet(fd) {
  try {
    closeSync(fd)
  } catch {
    /* already closed */
  }
}
/** A Node fs error, restated with the workspace-relative path instead of Node's own text. */
function restate(e, rel) {
  if (!e || typeof e.code !== 'string' || e.code === 'EIO' || (e.message && !e.syscall)) return e
  if (e.code === 'ENOENT') return fail('ENOENT', 'no such file or folder: ' + rel)
  if (e.code === 'ELOOP') return fail('EACCES', rel + ' is a symlink at the point of use; refused')
  if (e.code === 'EBUSY') return fail('EROFS', rel + ' is a mount point (read-only); refused')
  return fail(e.code, e.code + ': ' + rel)
}
/** Opens parts[i] inside folder `fd` as a folder, never through a symlink; `create`: mkdir it first. */
function openChild(fd, parts, i, create) {
  const path = at(fd, parts[i])
  const rel = relOf(parts, i + 1)
  if (create) {
    try {
      mkdirSync(path, 0o777)
    } catch (e) {
      if (e.code !== 'EEXIST') throw restate(e, rel)
    }
  }
  try {
    return openSync(path, DIR_FLAGS)
  } catch (e) {
    if (e.code === 'ENOTDIR' || e.code === 'ELOOP') {
      let st
      try {
        st = lstatSync(path)
      } catch {
        /* gone */
      }
      if (st?.isSymbolicLink()) throw fail('EACCES', rel + ' is a symlink at the point of use; refused (it is not followed)')
      // Gone or a folder again by now: it was swapped while being opened.
      if (!st || st.isDirectory()) throw fail('EACCES', rel + ' changed while it was being opened; refused')
      throw fail('ENOTDIR', rel + ' is not a folder')
    }
    throw restate(e, rel)
  }
}
/** The folder of parts[0..n) opened by descriptor from the root. */
function openDir(root, parts, n, create) {
  let fd
  try {
    fd = openSync(root, DIR_FLAGS)
  } catch (e) {
    throw restate(e, '.')
  }
  for (let i = 0; i < n; i++) {
    let next
    try {
      next = openChild(fd, parts, i, create)
    } finally {
      closeQuiet(fd)
    }
    fd = next
  }
  return fd
}
/** fn(parentFd, name, rel) with the parent of `p` open; the root itself has no parent. */
async function withParent(root, p, create, fn) {
  const parts = partsOf(root, p)
  if (parts.length === 0) throw fail('EPERM', 'the workspace root itself cannot be the target of this operation')
  const fd = openDir(root, parts, parts.length - 1, create)
  try {
    return await fn(fd, parts[parts.length - 1], relOf(parts))
  } finally {
    closeQuiet(fd)
  }
}
async function withDir(root, p, fn) {
  const parts = partsOf(root, p)
  const fd = openDir(root, parts, parts.length, false)
  try {
    return await fn(fd, relOf(parts))
  } finally {
    closeQuiet(fd)
  }
}
function typeOf(st) {
  return st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other'
}
const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
function sorted(list, cmp) {
  return ReflectApply(sortArray, list, [cmp])
}
async function removeEntry(fd, name, recursive) {
  const path = at(fd, name)
  const st = await lstat(path)
  if (!st.isDirectory()) return unlink(path)
  if (recursive) {
    let child
    try {
      child = openChild(fd, [name], 0, false)
    } catch (e) {
      // It stopped being a folder between the lstat and the open: remove whatever it is now.
      if (e.code === 'EACCES' || e.code === 'ENOTDIR') return unlink(path)
      throw e
    }
    try {
      for (const entry of await readdir(self(child))) await removeEntry(child, entry, true)
    } finally {
      closeQuiet(child)
    }
  }
  return rmdir(path)
}

const decoder = new TextDecoder('utf-8', { fatal: true })
const ops = {
  readFile(root, [p, maxBytes]) {
    return withParent(root, p, false, async (dir, name, rel) => {
      let handle
      try {
        handle = await open(at(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
      } catch (e) {
        throw restate(e, rel)
      }
      try {
        const st = await handle.stat()
        if (st.isDirectory()) throw fail('EISDIR', rel + ' is a folder; use list_dir')
        if (!st.isFile()) throw fail('EIO', rel + ' is not a regular file')
        if (st.size > maxBytes)
          throw fail(
            'EFBIG',
            rel + ' is ' + st.size + ' bytes, over the ' + maxBytes + '-byte read limit; read it with bash (head, sed -n) instead',
          )
        const buf = await handle.readFile()
        if (buf.length > maxBytes) throw fail('EFBIG', rel + ' is over the ' + maxBytes + '-byte read limit')
        if (buf.includes(0)) throw fail('EILSEQ', rel + ' is a binary file; not returned as text')
        try {
          return decoder.decode(buf)
        } catch {
          throw fail('EILSEQ', rel + ' is not valid UTF-8 text; not returned as text')
        }
      } finally {
        await handle.close()
      }
    })
  },
  // Atomic: a temp file made O_EXCL | O_NOFOLLOW in the same folder descriptor, renamed over the name.
  writeFile(root, [p, content]) {
    return withParent(root, p, true, async (dir, name, rel) => {
      const target = at(dir, name)
      let old
      try {
        old = await lstat(target)
      } catch (e) {
        if (e.code !== 'ENOENT') throw restate(e, rel)
      }
      if (old?.isDirectory()) throw fail('EISDIR', rel + ' is a folder')
      if (old?.isSymbolicLink()) throw fail('EACCES', rel + ' is a symlink at the point of use; refused')
      const temp = at(dir, '.' + ReflectApply(sliceStr, name, [0, 200]) + '.codeact-' + randomBytes(6).toString('hex'))
      let handle
      try {
        handle = await open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, old ? old.mode & 0o7777 : 0o666)
      } catch (e) {
        throw restate(e, rel)
      }
      try {
        // The mode open() gave (less the umask) is usually it already; chmod makes it exact where it may
        // (Node's permission model, which the runner enables, disables fchmod: then open's mode stands).
        if (old)
          await handle.chmod(old.mode & 0o7777).catch((e) => {
            if (e.code !== 'ERR_ACCESS_DENIED' && !/Permission Model/.test(String(e.message))) throw e
          })
        await handle.writeFile(String(content), 'utf8')
        await handle.close()
        await rename(temp, target)
      } catch (e) {
        await handle.close().catch(() => undefined)
        await unlink(temp).catch(() => undefined)
        throw restate(e, rel)
      }
    })
  },
  async mkdir(root, [p]) {
    const parts = partsOf(root, p)
    try {
      closeQuiet(openDir(root, parts, parts.length, true))
    } catch (e) {
      if (e.code === 'ENOTDIR') throw fail('EEXIST', relOf(parts) + ': exists and is not a folder')
      throw e
    }
  },
  remove(root, [p, recursive]) {
    return withParent(root, p, false, async (dir, name, rel) => {
      try {
        await removeEntry(dir, name, recursive === true)
      } catch (e) {
        throw restate(e, rel)
      }
    })
  },
  readdir(root, [p]) {
    return withDir(root, p, async (dir, rel) => {
      try {
        const out = []
        for (const name of sorted(await readdir(self(dir)), byName)) {
          const st = await lstat(at(dir, name))
          out[out.length] = { name, type: typeOf(st), size: st.isDirectory() ? 0 : st.size }
        }
        return out
      } catch (e) {
        throw restate(e, rel)
      }
    })
  },
  async stat(root, [p]) {
    const info = (st) => ({
      type: typeOf(st),
      size: st.isDirectory() ? 0 : st.size,
      mtimeMs: Math.round(st.mtimeMs),
      mode: st.mode & 0o7777,
    })
    if (partsOf(root, p).length === 0) return withDir(root, p, async (dir) => info(await lstat(self(dir))))
    return withParent(root, p, false, async (dir, name, rel) => {
      try {
        return info(await lstat(at(dir, name)))
      } catch (e) {
        throw restate(e, rel)
      }
    })
  },
  walk(root, [p, limit]) {
    return withDir(root, p, async (top) => {
      const entries = []
      async function visit(dir, prefix) {
        let dirents
        try {
          dirents = await readdir(self(dir), { withFileTypes: true })
        } catch {
          return true
        }
        for (const d of sorted(dirents, (a, b) => byName(a.name, b.name))) {
          if (entries.length >= limit) return false
          const rel = prefix ? prefix + '/' + d.name : d.name
          const type = typeOf(d)
          entries[entries.length] = { path: rel, type }
          if (type !== 'dir') continue
          let child
          try {
            child = openChild(dir, [d.name], 0, false)
          } catch {
            continue // gone, or swapped for a symlink since the listing: not descended into
          }
          try {
            if (!(await visit(child, rel))) return false
          } finally {
            closeQuiet(child)
          }
        }
        return true
      }
      const complete = await visit(top, '')
      return { entries, truncated: !complete }
    })
  },
  exec(_root, [request], id) {
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
      const kill = () => {
        try {
          process.kill(-child.pid, 'SIGKILL')
        } catch {
          /* already gone */
        }
      }
      running.set(id, kill)
      for (const name of ['stdout', 'stderr']) {
        child[name].on('data', (chunk) => {
          const room = maxOutputBytes - sizes[name]
          if (chunk.length > room) truncated = true
          if (room > 0) streams[name].push(chunk.subarray(0, room))
          sizes[name] += Math.min(Math.max(room, 0), chunk.length)
        })
      }
      const timer = setTimeout(() => {
        timedOut = true
        kill()
      }, timeoutMs)
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
        // "Device or resource busy": renaming or removing a mount point — a read-only part or one of its parents.
        const m = /^.*(Read-only file system|Device or resource busy|Permission denied|Operation not permitted).*$/m.exec(stderr)
        if (m) {
          result.denied =
            m[1] === 'Read-only file system' || m[1] === 'Device or resource busy'
              ? 'EROFS'
              : m[1] === 'Permission denied'
                ? 'EACCES'
                : 'EPERM'
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
      send({ type: 'opResult', id: msg.id, ok: false, error: { code, message: String(e?.message || e).slice(0, 1000) } })
    },
  ])
}
