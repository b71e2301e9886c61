/**
 * PostgreSQL and Redis on 127.0.0.1 for n8n's queue mode, through their command-line clients (`psql`,
 * `redis-cli`), so that no database driver becomes a dependency of the package. Each run creates its own
 * database and uses its own Redis db index and key prefix, and removes them afterwards.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PostgresTarget {
	host?: string;
	port?: number;
	user?: string;
}

function psqlArgs(target: PostgresTarget): string[] {
	return ['-h', target.host ?? '127.0.0.1', '-p', String(target.port ?? 5432), '-U', target.user ?? 'postgres'];
}

async function psql(sql: string, target: PostgresTarget = {}, database = 'postgres'): Promise<string> {
	const { stdout } = await run('psql', [...psqlArgs(target), '-d', database, '-v', 'ON_ERROR_STOP=1', '-Atc', sql], {
		timeout: 120_000,
	});
	return stdout.trim();
}

function assertIdentifier(name: string): void {
	if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Not a safe database name: ${name}`);
}

export async function isPostgresReachable(target: PostgresTarget = {}): Promise<boolean> {
	try {
		return (await psql('select 1', target)) === '1';
	} catch {
		return false;
	}
}

export async function createDatabase(name: string, target: PostgresTarget = {}): Promise<void> {
	assertIdentifier(name);
	await psql(`create database ${name}`, target);
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

export interface RedisTarget {
	host?: string;
	port?: number;
	db?: number;
}

function redisArgs(target: RedisTarget): string[] {
	return ['-h', target.host ?? '127.0.0.1', '-p', String(target.port ?? 6379), '-n', String(target.db ?? 0)];
}

export async function isRedisReachable(target: RedisTarget = {}): Promise<boolean> {
	try {
		const { stdout } = await run('redis-cli', [...redisArgs(target), 'ping'], { timeout: 10_000 });
		return stdout.trim() === 'PONG';
	} catch {
		return false;
	}
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
