/** Placeholder: the safe standard globals (filled in below). */
export const GLOBALS_SOURCE = ''
