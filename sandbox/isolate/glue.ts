/**
 * The glue that joins the prelude to the child process, evaluated in each run's fresh context with
 * `context.evalClosure` (arguments `$0`…`$4`). It keeps the two host callbacks in its closure, so no
 * isolated-vm object and no temporary global is ever reachable from the program.
 *
 *   $0 the prelude function          $1 the program function (`program.js`)
 *   $2 send(callId, name, argsJson)  $3 log(level, text)   (both plain functions, fire-and-forget)
 *   $4 JSON text of the prelude config
 *   $5 timer(op, id, ms), optional: a host timer ('set' / 'clear') that answers with control('timer', id)
 *
 * It returns one function, `control`: `control('start')` runs the program and resolves to the JSON text of
 * a PreludeOutcome; `control('deliver', callId, text)` settles a pending tool call with the host's answer;
 * `control('timer', id)` fires a timer. A tool call is a fire-and-forget message out and an ignored apply
 * back in: two hops, nothing blocks. The prelude removed WebAssembly when it was evaluated, before the
 * program's script; the delete here is a second lock for a prelude built without it.
 */
export const GLUE_FILENAME = 'codeact-glue.js'

export const GLUE_SOURCE = `'use strict';
// WebAssembly memory is not counted against the isolate's memory limit (measured: it grows to gigabytes
// in the child), so a program does not get WebAssembly at all.
delete globalThis.WebAssembly;
const prelude = $0, programFn = $1, send = $2, log = $3;
const timer = typeof $5 === 'undefined' ? undefined : $5;
const config = JSON.parse($4);
const ReflectApply = Reflect.apply, PromiseCtor = Promise, MapCtor = Map;
const mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete;
const pending = new MapCtor();
let nextCallId = 0;
function hostCall(name, argsJson) {
  return new PromiseCtor(function (resolve) {
    const callId = nextCallId++;
    ReflectApply(mapSet, pending, [callId, resolve]);
    send(callId, name, argsJson);
  });
}
function hostLog(level, text) { log(level, text); }
function hostTimer(op, id, ms) { timer(op, id, ms); }
const runProgram = prelude(hostCall, hostLog, config, timer === undefined ? undefined : hostTimer);
const fireTimer = runProgram.fireTimer;
return function control(op, callId, text) {
  if (op === 'start') return runProgram(programFn);
  if (op === 'timer') { fireTimer(callId); return; }
  const resolve = ReflectApply(mapGet, pending, [callId]);
  if (resolve === undefined) return;
  ReflectApply(mapDelete, pending, [callId]);
  resolve(text);
};
`
