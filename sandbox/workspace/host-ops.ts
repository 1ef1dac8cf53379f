/** The host `WorkspaceOps`: node:fs for files (re-checked at the point of use), bubblewrap for commands. */
import { HostFs } from './host-fs.js'
import { runConfined } from './bwrap.js'
import type { WorkspaceConfig, WorkspaceOps } from './ops.js'

export function createHostOps(config: WorkspaceConfig, bwrapPath = 'bwrap'): WorkspaceOps {
  const fs = new HostFs(config)
  return {
    readFile: (path, maxBytes) => fs.readFile(path, maxBytes),
    readFileSigned: (path, maxBytes) => fs.readFileSigned(path, maxBytes),
    writeFile: (path, content) => fs.writeFile(path, content),
    mkdir: (path) => fs.mkdir(path),
    remove: (path, recursive) => fs.remove(path, recursive),
    readdir: (path) => fs.readdir(path),
    stat: (path) => fs.stat(path),
    walk: (path, limit) => fs.walk(path, limit),
    exec: (request, signal) => runConfined(config, bwrapPath, request, signal),
  }
}
