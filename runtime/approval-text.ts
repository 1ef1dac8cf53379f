/**
 * What a person is asked before a call runs, the same on every front door (the terminal's `--ask`, an MCP
 * client's elicitation): the question, and the whole call whenever the question does not already show it,
 * with controls, escape sequences, bidi overrides, invisible characters, long runs of spaces and letters of
 * another script inside an ASCII word made visible, so nothing in the arguments can hide part of the call.
 */
import { createHash } from 'node:crypto'
import { markLookAlikes, visible } from '../vocabulary/visible-text.js'
import type { ApprovalRequest, JsonValue } from '../vocabulary/types.js'

/** Spaces in a row from which the run is shown as `«N spaces»`. */
const SPACE_RUN = 8

/** The question `approve: [names]` asks: the tool and its whole arguments. */
export function defaultQuestion(name: string, args: JsonValue): string {
  return `Allow ${name}(${JSON.stringify(args) ?? ''})?`
}

/** One line of the approval, shown so that it cannot act on a terminal or hide part of itself. */
export function shownForApproval(text: string): string {
  return markLookAlikes(visible(text, { spaceRun: SPACE_RUN }))
}

/** The full text of the approval: the question, then the call itself when the question is not the call. */
export function approvalText(request: Pick<ApprovalRequest, 'name' | 'args' | 'message'>): string {
  const asked = defaultQuestion(request.name, request.args)
  const question = shownForApproval(request.message)
  if (request.message === asked) return question
  return `${question}\n  the call: ${shownForApproval(asked.slice('Allow '.length, -1))}`
}

/** A short digest of the whole call, for a front door that shows only part of a long one. */
export function callDigest(request: Pick<ApprovalRequest, 'name' | 'args'>): string {
  return createHash('sha256').update(defaultQuestion(request.name, request.args)).digest('hex').slice(0, 16)
}
