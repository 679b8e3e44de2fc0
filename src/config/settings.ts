/**
 * Every environment variable `loadConfig` reads, with its default and meaning: the list
 * `latchkey serve --help` prints. A test holds it to what `loadConfig` actually reads and to the
 * README's table, so a new setting cannot be left out of either.
 */
export interface Setting {
  name: string;
  /** What applies when the variable is unset or empty. */
  default: string;
  meaning: string;
}

export const SETTINGS: readonly Setting[] = [
  { name: 'PORT', default: '8080', meaning: 'HTTP port (0 picks a free one)' },
  { name: 'HOST', default: '0.0.0.0', meaning: 'HTTP listen address' },
  { name: 'BASE_URL', default: 'http://localhost:$PORT', meaning: 'public base URL: token iss/aud, Location headers' },
  { name: 'DATA_DIR', default: './data', meaning: 'embedded database, key-encryption key, outbox, uploaded files' },
  { name: 'DATABASE_URL', default: 'SQLite file in DATA_DIR', meaning: 'postgres://… for PostgreSQL; sqlite:PATH or file:PATH for another SQLite file' },
  { name: 'MQTT_URL', default: 'embedded broker', meaning: 'external MQTT broker (mqtt://, mqtts://)' },
  { name: 'MQTT_PORT', default: '1884', meaning: "embedded broker's port (0 picks a free one)" },
  { name: 'MQTT_TLS_KEY_FILE', default: 'plain MQTT', meaning: "PEM key of the embedded broker's TLS listener (with MQTT_TLS_CERT_FILE)" },
  { name: 'MQTT_TLS_CERT_FILE', default: 'plain MQTT', meaning: "PEM certificate of the embedded broker's TLS listener (with MQTT_TLS_KEY_FILE)" },
  { name: 'MQTT_TOPIC_PREFIX', default: 'locks', meaning: 'first topic level of the lock link ({prefix}/{lockId}/…)' },
  { name: 'REDIS_URL', default: 'in-process bus', meaning: 'Redis for events, sessions, routing and rate limits; required when several instances share a database' },
  { name: 'SMTP_URL', default: 'DATA_DIR/outbox/', meaning: 'smtp://user:pass@host:port for email; checked at start-up, a warning when unreachable' },
  { name: 'SMS_WEBHOOK_URL', default: 'DATA_DIR/outbox/', meaning: 'receives POST {"channel","to","text"} for text messages' },
  { name: 'CDN_URL', default: '$BASE_URL/cdn', meaning: 'where logos are served' },
  { name: 'S3_ENDPOINT', default: 'logos in DATA_DIR/cdn', meaning: 'S3-compatible storage for uploaded logos (with S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY)' },
  { name: 'S3_BUCKET', default: '-', meaning: 'the bucket of S3 storage' },
  { name: 'S3_REGION', default: 'us-east-1', meaning: 'the region of S3 storage' },
  { name: 'S3_ACCESS_KEY_ID', default: '-', meaning: 'the access key of S3 storage' },
  { name: 'S3_SECRET_ACCESS_KEY', default: '-', meaning: 'the secret key of S3 storage' },
  { name: 'S3_SESSION_TOKEN', default: '-', meaning: 'the session token of temporary S3 credentials (with S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)' },
  { name: 'S3_PUBLIC_URL', default: '$S3_ENDPOINT/$S3_BUCKET', meaning: "where the bucket's objects are publicly readable" },
  { name: 'CA_FILE', default: 'a CA made on first start', meaning: "an operator's CA (root and intermediate) for ephemeral-key certificates" },
  { name: 'SSE_HEARTBEAT_MS', default: '15000', meaning: 'keep-alive comments on GET /device/events' },
  { name: 'EVENT_STREAMS_PER_USER', default: '10', meaning: 'event streams (GET /device/events) one user may hold open at once on one instance' },
  { name: 'HTTP_REQUEST_TIMEOUT_MS', default: '30000', meaning: 'time a client has to send a whole request, headers and body; then 408 and the connection closes' },
  { name: 'LOCK_REPLY_TIMEOUT_MS', default: '5000', meaning: "wait for a lock's reply before 504" },
  { name: 'CERT_CHECK', default: 'new-key', meaning: 'when a certificate request needs a verification code: always, new-key or never' },
  { name: 'LOG_LEVEL', default: 'info', meaning: 'fatal, error, warn, info, debug, trace or silent' },
  { name: 'KEY_ENCRYPTION_KEY', default: 'key file in DATA_DIR', meaning: 'Base64 of 32 bytes sealing private keys at rest; the same on every instance' },
  { name: 'TRUST_PROXY', default: 'none', meaning: 'comma-separated addresses/CIDRs of reverse proxies whose X-Forwarded-For is believed' },
  { name: 'AUTH_TOKEN_TTL_SECONDS', default: '604800 (7 days)', meaning: 'auth token lifetime' },
  { name: 'REFRESH_TOKEN_TTL_SECONDS', default: '7776000 (90 days)', meaning: 'refresh token lifetime' },
  { name: 'RATE_LOGIN_FAILURES_PER_ACCOUNT', default: '10', meaning: 'failed logins per account from one address in the window below' },
  { name: 'RATE_LOGIN_FAILURES_PER_ACCOUNT_ALL', default: '100', meaning: 'failed logins per account from all addresses in the window below' },
  { name: 'RATE_LOGIN_FAILURES_WINDOW_SECONDS', default: '900', meaning: 'the window of both RATE_LOGIN_FAILURES_PER_ACCOUNT limits' },
  { name: 'RATE_VERIFY_PER_USER', default: '10', meaning: 'verification messages a user may ask for per hour' },
  { name: 'RATE_PASSWORD_RESETS_PER_EMAIL_ALL', default: '30', meaning: 'password reset emails to one address per hour, from all caller addresses' },
  { name: 'MQTT_CONFIG_REPUBLISH_PER_SECOND', default: '2000', meaning: 'lock configs republished a second at most, on each broker (re)connection and sweep' },
  { name: 'MQTT_CONFIG_SWEEP_SECONDS', default: '3600', meaning: "seconds between sweeps republishing every lock's config; 0 = none" },
  { name: 'OPERATION_QUEUE_SWEEP_SECONDS', default: '60', meaning: 'seconds between sweeps of queued signed operations (expired ones dropped and audited, waiting ones of online locks delivered); 0 = none' },
  { name: 'MQTT_ALLOW_INSECURE_BROKER', default: 'false', meaning: 'true starts even when the external broker accepts anonymous clients or a wrong lock password' },
  { name: 'MQTT_TLS_CLIENT_CA_FILE', default: '-', meaning: "PEM CA whose device certificates the embedded broker's TLS listener accepts as locks" },
  { name: 'MQTT_AUTH_HOOK_SECRET', default: '- (no hook)', meaning: 'at least 24 characters: enables the broker authentication hook /mqtt-auth/* (EMQX, mosquitto-go-auth)' },
  { name: 'LOCK_SECRET', default: '-', meaning: 'the device secret for `latchkey lock simulate` (or --secret-file)' },
  { name: 'METRICS_TOKEN', default: '-', meaning: 'bearer token (16+ characters) for GET /metrics (Prometheus text) on the API listener' },
  { name: 'METRICS_PORT', default: '- (no metrics endpoint unless METRICS_TOKEN)', meaning: 'serve GET /metrics on a listener of its own' },
  { name: 'AUDIT_CHECKPOINT_INTERVAL_MS', default: '1000', meaning: 'at most one signed audit checkpoint per interval (0: after every commit)' },
  { name: 'AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S', default: '3600', meaning: 'anonymous callers of GET /audit/checkpoint get the newest checkpoint signed by the last multiple of this many seconds (0: the latest)' },
  { name: 'AUDIT_CHECKPOINT_FILE', default: 'DATA_DIR/audit-checkpoints', meaning: 'file outside the database to which every signed audit checkpoint is appended' },
  { name: 'RATE_INVITES_PER_USER', default: '50', meaning: 'invitations (emails to new invitees) plus directory look-ups an admin may make per day' },
  { name: 'RATE_AUTH_PER_IP', default: '300', meaning: 'requests to authentication endpoints per IP per minute' },
  { name: 'RATE_REQUESTS_PER_CALLER', default: '100000', meaning: 'requests per caller (token or IP) per minute' },
  { name: 'RATE_EXECUTE_PER_USER', default: '600', meaning: 'signed operations per user per minute, on any lock' },
  { name: 'RATE_EXECUTE_PER_LOCK', default: '1200', meaning: 'signed operations per lock per minute, from all its members' },
  { name: 'RATE_REPORTS_PER_LOCK', default: '300', meaning: 'lock reports recorded per lock per minute' },
];
