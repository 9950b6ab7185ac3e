// How numbers cross between JavaScript and DynamoDB. A month's usage sum is the one number of
// ours that can pass 2^53 (events of up to 10^15 each, any number of them): DynamoDB adds it
// exactly, and here it is written as JavaScript holds it and read as the nearest double, where
// the SDK's defaults would throw or hand out a BigInt (a 500 on every route that reads it).
// Every other number is a safe integer or a short decimal, which these options leave as is.

/** For marshall and the DocumentClient's writes. */
export const marshallNumbers = { allowImpreciseNumbers: true } as const;

/** For unmarshall, convertToNative and the DocumentClient's reads. */
export const unmarshallNumbers = { wrapNumbers: (value: string) => Number(value) } as const;
