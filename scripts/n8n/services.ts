/**
 * PostgreSQL and Redis on 127.0.0.1 for n8n's queue mode and the tests that write into a database, through their
 * command-line clients (`psql`, `redis-cli`), so that no database driver becomes a dependency of the package. Each
 * run creates its own database and uses its own Redis db index and key prefix, and removes them afterwards.
 *
 * The one place that gets them running: the end-to-end set-up (test/e2e/global-setup.ts) calls `startServices`, which
 * starts a server that is installed but stopped (PostgreSQL through `service`, else `pg_ctlcluster`, as containers
 * without a running init system need; Redis as a scratch `redis-server`, else through `service`), and the tests' guards (`isPostgresReachable`, `isRedisReachable`, and
 * `createDatabase`) fail at once with one message that names what to install when a server or its client is missing,
 * instead of a timeout or a skip. Nothing here runs for `npm run test:unit`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the requirements and their installation are described (README links there too). */
const REQUIREMENTS = 'docs/development.md, "Requirements"';
/** How long a server may take to answer once its start command returned. */
const START_WAIT_MS = 30_000;

type ServiceName = 'postgres' | 'redis';

/** A server the tests need: how to reach it, how to start it, and what to install when it is not there. */
interface Service {
	title: string;
	address: string;
	/** The client the helpers below talk through. */
	client: string;
	/** Whether the server answers; `refusal` when it answers but will not let the tests in (auth). */
	probe(): Promise<{ ok: true } | { ok: false; refusal?: string }>;
	/** The commands that may start it here, in the order tried (only those whose program exists). */
	starts(): string[][];
	/** One sentence: what to install, on Debian/Ubuntu and with Docker. */
	install: string;
	/** What the tests need once it answers (for a server that refuses them). */
	access: string;
}

/** Whether `program` is on PATH (an absolute path: whether it exists). */
function onPath(program: string): boolean {
	if (program.includes('/')) return existsSync(program);
	return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, program)));
}

/** Debian's clusters (`/etc/postgresql/<version>/<name>`), which `pg_ctlcluster` starts. */
function postgresClusters(): Array<[string, string]> {
	const root = '/etc/postgresql';
	if (!existsSync(root)) return [];
	return readdirSync(root).flatMap((version) =>
		readdirSync(join(root, version))
			.filter((name) => existsSync(join(root, version, name, 'postgresql.conf')))
			.map((name): [string, string] => [version, name]),
	);
}

/** Debian's own way to start one cluster, also where `service` hands over to a systemd that is not running. */
function startCluster([version, name]: [string, string]): string[] {
	return ['pg_ctlcluster', '--skip-systemctl-redirect', version, name, 'start'];
}

/** `service <name> start` where an init script of that name exists. */
function serviceStart(name: string): string[][] {
	return onPath('service') && existsSync(`/etc/init.d/${name}`) ? [['service', name, 'start']] : [];
}

export interface PostgresTarget {
	host?: string;
	port?: number;
	user?: string;
}

function psqlArgs(target: PostgresTarget): string[] {
	// -w: never ask for a password (psql would wait on the terminal): trust or PGPASSWORD, else a clear failure.
	const { host = '127.0.0.1', port = 5432, user = 'postgres' } = target;
	return ['-w', '-h', host, '-p', String(port), '-U', user];
}

async function psql(sql: string, target: PostgresTarget = {}, database = 'postgres'): Promise<string> {
	const { stdout } = await run('psql', [...psqlArgs(target), '-d', database, '-v', 'ON_ERROR_STOP=1', '-Atc', sql], {
		timeout: 120_000,
	});
	return stdout.trim();
}

export interface RedisTarget {
	host?: string;
	port?: number;
	db?: number;
}

function redisArgs(target: RedisTarget): string[] {
	return ['-h', target.host ?? '127.0.0.1', '-p', String(target.port ?? 6379), '-n', String(target.db ?? 0)];
}

/**
 * Redis for the tests, started as the user who runs them: on 127.0.0.1 (and ::1 where there is one), as a daemon,
 * keeping nothing on disk (the tests' keys live for one run). Tried before `service redis-server start`, which needs
 * root and an init system, and starts the distribution's server with its snapshots to disk: where its folder is not
 * writable by its user (as in some container images) its first failed snapshot makes Redis refuse every write.
 */
const REDIS_SERVER = 'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --appendonly no'
	.split(' ')
	.concat(['--save', '']);

/** What psql says when no server takes connections (as opposed to one that refuses the tests' user). */
const POSTGRES_DOWN =
	/could not connect|connection refused|no such file|timeout expired|ETIMEDOUT|starting up|shutting down/i;

/** The error output of a failed client call, on one line. */
function stderrOf(error: unknown): string {
	const text = String((error as { stderr?: string }).stderr || (error as Error).message || error);
	return text.trim().replace(/\s+/g, ' ');
}

const SERVICES: Record<ServiceName, Service> = {
	postgres: {
		title: 'PostgreSQL',
		address: '127.0.0.1:5432',
		client: 'psql',
		async probe() {
			try {
				return (await psql('select 1')) === '1' ? { ok: true } : { ok: false };
			} catch (error) {
				const said = stderrOf(error);
				// A server that answers but turns the tests' user away is running: starting it again will not help.
				const down = POSTGRES_DOWN.test(said);
				return down ? { ok: false } : { ok: false, refusal: said };
			}
		},
		starts: () => [
			...serviceStart('postgresql'),
			...(onPath('pg_ctlcluster') ? postgresClusters().map(startCluster) : []),
		],
		install:
			'Debian/Ubuntu: `apt-get install postgresql` and let user postgres in from 127.0.0.1 without a password ' +
			'(`host all postgres 127.0.0.1/32 trust` first in pg_hba.conf); Docker: `docker run -d -p 127.0.0.1:5432:5432 ' +
			'-e POSTGRES_HOST_AUTH_METHOD=trust postgres:16` and `apt-get install postgresql-client` for psql',
		access:
			'user postgres without a password from 127.0.0.1 (`host all postgres 127.0.0.1/32 trust` first in ' +
			'pg_hba.conf, then reload), or PGPASSWORD set',
	},
	redis: {
		title: 'Redis',
		address: '127.0.0.1:6379',
		client: 'redis-cli',
		async probe() {
			try {
				const { stdout } = await run('redis-cli', [...redisArgs({}), 'ping'], { timeout: 10_000 });
				if (stdout.trim() === 'PONG') return { ok: true };
				// A server that answers otherwise (NOAUTH, protected mode) is running: starting it again will not help.
				return stdout.trim() === '' ? { ok: false } : { ok: false, refusal: stdout.trim() };
			} catch {
				return { ok: false };
			}
		},
		// A scratch server first (no root, no init system, nothing on disk); else the distribution's service.
		starts: () => [...(onPath('redis-server') ? [REDIS_SERVER] : []), ...serviceStart('redis-server')],
		install:
			'Debian/Ubuntu: `apt-get install redis-server`; Docker: `docker run -d -p 127.0.0.1:6379:6379 redis:7` and ' +
			'`apt-get install redis-tools` for redis-cli',
		access: 'no password on 127.0.0.1',
	},
};

/** What became of one server: it answers (`started`: this process started it), or why the tests cannot have it. */
type ServiceState = { ok: true; started: boolean } | { ok: false; message: string };

/** Per process: a server is started (or found missing) once, and every later guard gets the same answer at once. */
const states = new Map<ServiceName, Promise<ServiceState>>();

async function answersWithin(service: Service, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	for (;;) {
		if ((await service.probe()).ok) return true;
		if (Date.now() >= deadline) return false;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

async function bringUp(service: Service): Promise<ServiceState> {
	const { title, address, client } = service;
	const notInstalled = (why: string): ServiceState => ({
		ok: false,
		message: `${title} is not installed here (${why}), and these tests need it on ${address}. Install it: ${service.install} (${REQUIREMENTS}).`,
	});
	if (!onPath(client)) return notInstalled(`no ${client} on PATH`);
	const first = await service.probe();
	if (first.ok) return { ok: true, started: false };
	if (first.refusal) {
		const message = `${title} on ${address} answers but refuses the tests: ${first.refusal}. They need ${service.access} (${REQUIREMENTS}).`;
		return { ok: false, message };
	}
	const starts = service.starts();
	if (starts.length === 0) return notInstalled(`nothing answers on ${address}, and there is no server here to start`);
	const failures: string[] = [];
	for (const [program, ...args] of starts) {
		try {
			await run(program, args, { timeout: 60_000 });
		} catch (error) {
			// Another process may have started it meanwhile ("already running"): one look, then the next way.
			failures.push(`\`${[program, ...args].join(' ')}\`: ${stderrOf(error)}`);
			if ((await service.probe()).ok) return { ok: true, started: false };
			continue;
		}
		if (await answersWithin(service, START_WAIT_MS)) return { ok: true, started: true };
		failures.push(`\`${[program, ...args].join(' ')}\` ran, but nothing answered on ${address} within 30 s`);
	}
	const message = `${title} is installed but could not be started on ${address}: ${failures.join('; ')}. Start it yourself, as root: \`${starts[0].join(' ')}\` (${REQUIREMENTS}).`;
	return { ok: false, message };
}

function serviceState(name: ServiceName): Promise<ServiceState> {
	let state = states.get(name);
	if (!state) states.set(name, (state = bringUp(SERVICES[name])));
	return state;
}

/** Throws the one message that says what to install (or start, or allow) when `name` cannot be reached. */
async function requireService(name: ServiceName): Promise<void> {
	const state = await serviceState(name);
	if (!state.ok) throw new Error(state.message);
}

/**
 * Starts PostgreSQL and Redis where they are installed but stopped, and logs what became of each; never throws (a
 * run without them still runs the tests that need neither, and those that need one fail with its message).
 */
export async function startServices(log: (line: string) => void): Promise<void> {
	await Promise.all(
		(Object.keys(SERVICES) as ServiceName[]).map(async (name) => {
			const started = Date.now();
			const state = await serviceState(name);
			const seconds = ((Date.now() - started) / 1000).toFixed(1);
			if (!state.ok) log(`${SERVICES[name].title}: ${state.message}`);
			else log(`${SERVICES[name].title}: ${state.started ? `started in ${seconds} s` : 'running'}`);
		}),
	);
}

/**
 * The guard of the tests that need PostgreSQL (user postgres, no password, on 127.0.0.1:5432): true once it answers,
 * started here when it was installed but stopped. It never answers false: when PostgreSQL cannot be had it throws the
 * message that names what to install (or start, or allow), so that those tests fail at once with it.
 */
export async function isPostgresReachable(): Promise<boolean> {
	await requireService('postgres');
	return true;
}

export async function createDatabase(name: string, target: PostgresTarget = {}): Promise<void> {
	assertIdentifier(name);
	await requireService('postgres');
	await psql(`create database ${name}`, target);
}

function assertIdentifier(name: string): void {
	if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Not a safe database name: ${name}`);
}

/** Drops the database, ending the sessions still connected to it (n8n's pool, should a process linger). */
export async function dropDatabase(name: string, target: PostgresTarget = {}): Promise<void> {
	assertIdentifier(name);
	await psql(`drop database if exists ${name} with (force)`, target);
}

/** Runs SQL in one database (tests set up and check the tables their workflows write); returns psql's unaligned rows. */
export async function queryDatabase(database: string, sql: string, target: PostgresTarget = {}): Promise<string> {
	assertIdentifier(database);
	return await psql(sql, target, database);
}

/**
 * The guard of the tests that need Redis on 127.0.0.1:6379 (queue mode): true once it answers on db `target.db`,
 * started here when it was installed but stopped; otherwise it throws, as isPostgresReachable does.
 */
export async function isRedisReachable(target: RedisTarget = {}): Promise<boolean> {
	await requireService('redis');
	const { stdout } = await run('redis-cli', [...redisArgs(target), 'ping'], { timeout: 10_000 });
	if (stdout.trim() !== 'PONG')
		throw new Error(`Redis on 127.0.0.1:6379 refuses db ${target.db ?? 0}: ${stdout.trim()}`);
	return true;
}

/** Deletes the keys under `prefix` (Bull's keys are `<prefix>:<queue>:...`) in one db; returns how many. */
export async function deleteRedisKeys(prefix: string, target: RedisTarget = {}): Promise<number> {
	if (!/^[A-Za-z0-9_-]+$/.test(prefix)) throw new Error(`Not a safe Redis key prefix: ${prefix}`);
	const { stdout } = await run('redis-cli', [...redisArgs(target), '--scan', '--pattern', `${prefix}:*`], {
		timeout: 30_000,
		maxBuffer: 64 * 1024 * 1024,
	});
	const keys = stdout.split('\n').filter(Boolean);
	for (let i = 0; i < keys.length; i += 500) {
		await run('redis-cli', [...redisArgs(target), 'del', ...keys.slice(i, i + 500)], { timeout: 30_000 });
	}
	return keys.length;
}
