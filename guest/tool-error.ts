/** The error a failed tool call rejects with, inside the program. */
import { ErrorCtor, ObjectDefineProperty } from './intrinsics.js'

// One class per realm: a session's later runs catch what its earlier runs' calls threw.
export class ToolCallError extends (ErrorCtor as ErrorConstructor) {
  declare toolName: string
  declare code: string
  constructor(toolName: string, code: string, message: string) {
    super(message)
    // Defined, not assigned: a program may have planted setters or getter-only properties for these
    // names on Object.prototype, and an assignment would run its code or throw.
    ObjectDefineProperty(this, 'name', { __proto__: null, value: 'ToolCallError', enumerable: false, configurable: true, writable: true })
    ObjectDefineProperty(this, 'toolName', { __proto__: null, value: toolName, enumerable: true, configurable: true, writable: true })
    ObjectDefineProperty(this, 'code', { __proto__: null, value: code, enumerable: true, configurable: true, writable: true })
  }
}
