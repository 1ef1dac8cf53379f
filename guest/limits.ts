/**
 * The numbers the guest and the host must agree on. The guest imports nothing of the host; the host's
 * backends import these, so a limit is written once for every side of the bridge.
 */

/** Tool calls one run may have in flight; past it a call is refused with EAGAIN instead of queued. */
export const MAX_CALLS_IN_FLIGHT = 4096
/**
 * The arguments of the calls in flight, counted in UTF-16 code units of their JSON text (what `.length`
 * answers on both sides, without encoding it): past it a call is refused with EAGAIN.
 */
export const MAX_ARGS_CHARS_IN_FLIGHT = 16 * 1024 * 1024
/** The refusal both sides answer with, as the JSON text of a failed ToolResult. */
export const TOO_MANY_CALLS_JSON = JSON.stringify({
  ok: false,
  error: {
    code: 'EAGAIN',
    message: `too many tool calls in flight (at most ${MAX_CALLS_IN_FLIGHT} calls or ${MAX_ARGS_CHARS_IN_FLIGHT / (1024 * 1024)} Mi characters of arguments); await some before starting more`,
  },
})
/** Past this many recorded entries (run-length encoded) a run's times are not recorded; a replay then reads the real clock. */
export const MAX_CLOCK_READS = 10_000
/** Marker prefix of `argsJson` when the program's arguments could not be turned into JSON. */
export const INVALID_ARGS_PREFIX = '!'
/**
 * The longest text a program's URL parse or setter hands the host's parser (each input, and the href it
 * answers), in UTF-16 code units: Chromium's own cap on a URL (url::kMaxURLChars). Past it the guest throws a
 * TypeError naming MAX_URL_CHARS before anything crosses; the host refuses an href that grew past it.
 */
export const MAX_URL_CHARS = 2 * 1024 * 1024
