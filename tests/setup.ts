import { inject } from 'vitest';

// Before any module reads its configuration: the handlers see the test database as they
// would see their table on Lambda.
process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.DYNAMODB_CREDENTIAL_FILE = inject('dynamoCredentialFile');
process.env.TABLE_NAME = 'pricing-test';
process.env.LOG_LEVEL ??= 'silent';
process.env.PAYMENT_KEY_FILE ??= inject('paymentKeyFile');
process.env.WIDGET_FILE ??= inject('widgetFile');
// The tests' webhook receivers listen on 127.0.0.1 over plain http.
process.env.WEBHOOK_URLS ??= 'loopback';
