/**
 * The environment every n8n process of ours gets: a private user folder, its own ports, no calls to the
 * internet, and log lines plain enough to parse.
 */

/** n8n features that would call n8n's servers (telemetry, version checks, templates, banners). */
export const QUIET_ENV: Readonly<Record<string, string>> = {
	N8N_DIAGNOSTICS_ENABLED: 'false',
	N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
	N8N_TEMPLATES_ENABLED: 'false',
	N8N_PERSONALIZATION_ENABLED: 'false',
	N8N_VERIFIED_PACKAGES_ENABLED: 'false',
	N8N_DYNAMIC_BANNERS_ENABLED: 'false',
	N8N_HIRING_BANNER_ENABLED: 'false',
	N8N_AI_ENABLED: 'false',
	// n8n otherwise warns at every start that the settings file is readable by others, and suggests this.
	N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
	// Requests to the simulator on 127.0.0.1 must never go through a proxy a machine may configure.
	NO_PROXY: '127.0.0.1,localhost',
	no_proxy: '127.0.0.1,localhost',
};

export interface N8nEnvOptions {
	userFolder: string;
	encryptionKey: string;
	/** HTTP port of `n8n start` (also set for CLI commands, where it is unused). */
	port: number;
	/** The task-runner broker port: every n8n process opens one, so each needs its own. */
	brokerPort: number;
	/** Default `info`: `n8n execute` prints its run data through the logger at that level. */
	logLevel?: 'error' | 'warn' | 'info' | 'debug';
	/** More variables (queue mode, database); they win over the defaults. */
	extra?: Record<string, string | undefined>;
}

export function n8nEnv(options: N8nEnvOptions): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	// Keep the shell's basics (PATH, HOME, locale, TMPDIR), not its n8n, npm or database settings, and not
	// jest's NODE_ENV=test: in "test" n8n silences its logger and skips parts of its start-up.
	for (const [key, value] of Object.entries(process.env)) {
		if (/^(N8N_|DB_|QUEUE_|EXECUTIONS_|npm_|JEST_|NODE_ENV$|WEBHOOK_URL$|GENERIC_TIMEZONE$)/i.test(key)) continue;
		env[key] = value;
	}
	Object.assign(env, QUIET_ENV, {
		N8N_USER_FOLDER: options.userFolder,
		N8N_ENCRYPTION_KEY: options.encryptionKey,
		N8N_PORT: String(options.port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		// n8n 2.41 reads N8N_WEBHOOK_URL (WEBHOOK_URL is deprecated there); older versions build the same URL from the
		// host, port and protocol above.
		N8N_WEBHOOK_URL: `http://127.0.0.1:${options.port}/`,
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${options.port}/`,
		// n8n 2.41 applies an activation or deactivation from an outbox table: at once when the call's wake-up
		// reaches the consumer (through Redis in queue mode), else at its next look, by default every 15 s. A test
		// that deactivates and activates a trigger in a row could wait that long per call; a look every second
		// bounds each wait to about a second. Older versions do not know the variable.
		N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000',
		N8N_RUNNERS_BROKER_PORT: String(options.brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		// The login cookie over plain http on 127.0.0.1.
		N8N_SECURE_COOKIE: 'false',
		N8N_LOG_LEVEL: options.logLevel ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		N8N_LOG_FORMAT: 'text',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
	});
	for (const [key, value] of Object.entries(options.extra ?? {})) {
		if (value === undefined) delete env[key];
		else env[key] = value;
	}
	return env;
}

export interface QueueModeOptions {
	/** PostgreSQL on 127.0.0.1 (user postgres, trust or PGPASSWORD). */
	postgres: { database: string; host?: string; port?: number; user?: string; password?: string };
	/** Redis on 127.0.0.1: a db index and a key prefix of this run's own (queue, cache and pub/sub channels). */
	redis: { db: number; prefix: string; host?: string; port?: number };
}

/**
 * n8n in queue mode: executions go to a Bull queue in Redis and workers (`n8n worker`) run them; main keeps
 * the triggers, pollers and webhooks. Both share the PostgreSQL database (SQLite cannot be shared).
 */
export function queueModeEnv(options: QueueModeOptions): Record<string, string> {
	const pg = options.postgres;
	const redis = options.redis;
	return {
		EXECUTIONS_MODE: 'queue',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: pg.host ?? '127.0.0.1',
		DB_POSTGRESDB_PORT: String(pg.port ?? 5432),
		DB_POSTGRESDB_DATABASE: pg.database,
		DB_POSTGRESDB_USER: pg.user ?? 'postgres',
		DB_POSTGRESDB_PASSWORD: pg.password ?? process.env.PGPASSWORD ?? '',
		QUEUE_BULL_REDIS_HOST: redis.host ?? '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port ?? 6379),
		QUEUE_BULL_REDIS_DB: String(redis.db),
		QUEUE_BULL_PREFIX: redis.prefix,
		// n8n's Redis cache keys and its pub/sub channels (main <-> worker commands) use this prefix; pub/sub
		// channels are shared by every db index of a Redis server, so two set-ups must not share it.
		N8N_REDIS_KEY_PREFIX: redis.prefix,
		// Runs started from the editor ("Execute workflow") go to the workers too, as in production set-ups.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		// Binary data must be readable by main and every worker: the filesystem mode is per process.
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
	};
}
