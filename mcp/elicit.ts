/**
 * Approvals over MCP: a call that asks is put to the connected client as `elicitation/create` (a form
 * with one "always" checkbox), when the client declared the `elicitation` capability. A client that did
 * not is never sent the request: the call is refused with a message saying so, so the model (and the
 * person reading the transcript) know why.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { approvalText } from '../runtime/approval-text.js'
import type { ApprovalHandler } from '../vocabulary/types.js'
import { visible } from '../vocabulary/visible-text.js'

/** The approval's own timeout (and the run's end) decide how long to wait, not the SDK's 60 s default. */
const NO_REQUEST_TIMEOUT_MS = 2 ** 31 - 1

const NO_ELICITATION_REASON =
  'this MCP client cannot be asked (it does not declare the elicitation capability), and this call needs approval'

export function elicitApproval(server: Server): ApprovalHandler {
  return async (request, signal) => {
    if (!server.getClientCapabilities()?.elicitation?.form) return { approve: false, reason: NO_ELICITATION_REASON }
    const result = await server.elicitInput(
      {
        // The same full text as the terminal's question: the whole call, nothing in it able to hide a part.
        message: approvalText(request),
        requestedSchema: {
          type: 'object',
          properties: {
            always: {
              type: 'boolean',
              title: `Always allow ${visible(request.name)}`,
              description: `Approve every later ${visible(request.name)} call without asking`,
              default: false,
            },
          },
        },
      },
      { signal, timeout: NO_REQUEST_TIMEOUT_MS },
    )
    if (result.action === 'accept') return { approve: true, always: result.content?.always === true }
    return { approve: false, reason: result.action === 'decline' ? 'the user declined' : 'the user dismissed the request' }
  }
}
