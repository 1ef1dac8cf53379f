#!/usr/bin/env node
// Adds an OCI runtime to a dockerd config file (daemon.json), keeping everything else in it:
//   node .ci/docker-runtime.mjs FILE NAME PATH [RUNTIME_ARG]...
// Prints "changed" when it wrote the file, "unchanged" when the runtime was already there as asked.
// A file that is not a JSON object is left alone (exit 1): a broken engine config is not ours to rewrite.
import fs from 'node:fs'
import path from 'node:path'

const [file, name, binary, ...runtimeArgs] = process.argv.slice(2)
if (!file || !name || !binary) {
  console.error('usage: docker-runtime.mjs FILE NAME PATH [RUNTIME_ARG]...')
  process.exit(2)
}
let config = {}
if (fs.existsSync(file)) {
  const text = fs.readFileSync(file, 'utf8')
  if (text.trim() !== '') {
    try {
      config = JSON.parse(text)
    } catch (e) {
      console.error(`${file} is not JSON (${e instanceof Error ? e.message : e}); not changing it`)
      process.exit(1)
    }
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    console.error(`${file} is not a JSON object; not changing it`)
    process.exit(1)
  }
}
const want = { path: binary, ...(runtimeArgs.length ? { runtimeArgs } : {}) }
/** @type {Record<string, unknown>} */
const runtimes = config.runtimes && typeof config.runtimes === 'object' ? config.runtimes : {}
if (JSON.stringify(runtimes[name]) === JSON.stringify(want)) {
  console.log('unchanged')
  process.exit(0)
}
config.runtimes = { ...runtimes, [name]: want }
fs.mkdirSync(path.dirname(file), { recursive: true })
// Written beside and renamed over: a reader never sees half a file.
const tmp = `${file}.codeact-${process.pid}`
fs.writeFileSync(tmp, JSON.stringify(config, null, 2) + '\n')
fs.renameSync(tmp, file)
console.log('changed')
