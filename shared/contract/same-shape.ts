/**
 * Compile-time lock-step between a zod schema elsewhere and a contract type:
 * `sameShape<z.infer<typeof X>, contract.X>(true)` compiles only while the two types are
 * identical (neither wider, no field missing or extra on either side), so changing one without
 * the other fails `npm run typecheck`. Types only: the call does nothing at run time.
 */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export function sameShape<A, B>(_proof: Equals<A, B>): void {}
