/**
 * PLACEHOLDER (branch hostprep): the gate's helper writes the measured gate in this file; at merge theirs
 * replaces this one. Until then, conservatively: at most 1 KB and no `<` at all (Babel's known
 * super-linear cases are `<` chains).
 */
export function hostPrepareAdmits(source: string): boolean {
  return source.length <= 1024 && !source.includes('<')
}
