/**
 * Copies a file keeping its holes. A command's `truncate -s 1500M` costs it nothing, but copyFile (libuv's
 * sendfile) writes every byte of the holes: folding two such files back into the stage wrote 3 GB and took
 * the host over a minute. A sparse file is copied by coreutils' `cp --sparse=always`, which finds the data
 * with SEEK_DATA/SEEK_HOLE (Node has neither) and reads no hole at all; where cp is missing, a chunk at a
 * time, chunks of zeros not written (the holes are then read, not written). Other files: copyFile.
 */
import { execFile } from 'node:child_process'
import { constants, type Stats } from 'node:fs'
import { copyFile, open, rm } from 'node:fs/promises'

/** Holes past this much make a file sparse (a file system's own rounding is far less). */
export const SPARSE_HOLE_BYTES = 1024 * 1024
const CHUNK_BYTES = 1024 * 1024

export function isSparse(st: Stats): boolean {
  return st.blocks * 512 + SPARSE_HOLE_BYTES < st.size
}

/** Copies `source` to `dest` (which must not exist), its holes kept holes. */
export async function copyKeepingHoles(source: string, dest: string): Promise<void> {
  const from = await open(source, 'r')
  try {
    const st = await from.stat()
    if (!isSparse(st)) return await copyFile(source, dest, constants.COPYFILE_EXCL)
    if (await cpSparse(source, dest)) return
    const to = await open(dest, 'wx', st.mode & 0o7777)
    try {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
      for (let at = 0; at < st.size; ) {
        const { bytesRead } = await from.read(chunk, 0, CHUNK_BYTES, at)
        if (bytesRead === 0) break
        const data = chunk.subarray(0, bytesRead)
        if (!isZeros(data)) await to.write(data, 0, bytesRead, at)
        at += bytesRead
      }
      await to.truncate(st.size)
    } finally {
      await to.close()
    }
  } finally {
    await from.close()
  }
}

/** cp, as the user's shell would find it; false when it could not copy (the partial copy is removed). */
function cpSparse(source: string, dest: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('cp', ['--sparse=always', '--no-dereference', '--preserve=mode', '--no-clobber', '--', source, dest], (err) => {
      if (!err) return resolve(true)
      void rm(dest, { force: true }).then(
        () => resolve(false),
        () => resolve(false),
      )
    })
  })
}

const ZEROS = Buffer.alloc(CHUNK_BYTES)

function isZeros(data: Buffer): boolean {
  return data.equals(ZEROS.subarray(0, data.length))
}
