/** The provider room's public face: the registry, and the request/result types learner code sees. */
export * from './registry';
export { IdempotencyError, type Charge, type ChargeRequest, type ChargeResult, type PaymentsApi } from './payments';
export type { EmailApi, EmailRequest, EmailResult, SentEmail } from './email';
export { transformOutput, type TransformApi, type TransformRequest, type TransformResult } from './transform';
export { LOOKUP_VERDICTS, lookupVerdictAt, type LookupApi, type LookupRequest, type LookupResult } from './lookup';
export type { CreditSpent, ItemRefusal, MeteredOptions } from './metered-account';
