/**
 * The one denial table both backends read (sandbox/workspace/denials.ts): a refusal is named the same
 * whether a Node call's errno or a command's stderr shows it.
 */
import { describe, expect, test } from 'vitest'
import { classifyDenial } from '../../sandbox/workspace/bwrap.js'
import { denialInStderr, denialOfErrno } from '../../sandbox/workspace/denials.js'

describe('the denial table', () => {
  test.each([
    ['EROFS', 'EROFS', "touch: cannot touch 'ro/x': Read-only file system"],
    ['EBUSY', 'EROFS', "mv: cannot move 'ro' to 'ro2': Device or resource busy"],
    ['EACCES', 'EACCES', '/bin/sh: 1: /tmp/s: Permission denied'],
    ['EPERM', 'EPERM', "chown: changing ownership of 'a': Operation not permitted"],
  ])('%s and its stderr line are both %s', (errno, code, line) => {
    expect(denialOfErrno(errno)).toBe(code)
    expect(denialInStderr(`ok\n${line}\n`)).toEqual({ code, line })
    expect(classifyDenial(line)).toEqual({ code, line })
  })

  test('what is not a refusal is not named one', () => {
    for (const errno of ['ENOENT', 'EEXIST', 'EISDIR', 'toString', '__proto__', 42, undefined]) expect(denialOfErrno(errno)).toBeUndefined()
    expect(denialInStderr('cat: x: No such file or directory')).toBeUndefined()
  })

  test('a read-only refusal outranks a permission one on another line', () => {
    expect(denialInStderr('a: Permission denied\nb: Read-only file system')).toEqual({ code: 'EROFS', line: 'b: Read-only file system' })
  })
})
