export { WEBHOOK_EVENTS, type WebhookEmitter, type WebhookEvent } from './events.js';
export { WebhookService, WEBHOOK_DEFAULTS, type WebhookSettings } from './service.js';
export { webhookRoutes } from './routes.js';
export { signBody, signPayload, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';
export { registrationProblem, isPrivateAddress } from './ssrf.js';
export { retryDelayMs } from './worker.js';
