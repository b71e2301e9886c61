/**
 * What the docs tools read from the shipped code's TypeScript sources without running it: its numeric constants
 * (`const BULK_MAX_NAMES = 100`, `COMPARE_LIMITS.maxDomains`), found by name in whatever file of nodes/ holds them,
 * so that the limits table does not depend on what a module exports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '../..');
const SHIPPED = ['nodes', 'credentials'];

const parsed = new Map<string, ts.SourceFile[]>();

/** The TypeScript sources of the shipped code, parsed (once), by path from the repository's root. */
export function shippedSources(root = ROOT): ts.SourceFile[] {
	const known = parsed.get(root);
	if (known) return known;
	const sources = parseShipped(root);
	parsed.set(root, sources);
	return sources;
}

function parseShipped(root: string): ts.SourceFile[] {
	const files: string[] = [];
	const walk = (dir: string) => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			const path = join(dir, entry.name);
			if (entry.isDirectory()) walk(path);
			else if (entry.name.endsWith('.ts')) files.push(path);
		}
	};
	for (const dir of SHIPPED) walk(join(root, dir));
	return files.sort().map((path) => {
		const text = readFileSync(path, 'utf8');
		return ts.createSourceFile(relative(root, path), text, ts.ScriptTarget.ES2022, true);
	});
}

/** The value of a numeric expression of literals (`64 * 1024`, `1 << 14`, `5_000_000`), else undefined. */
export function numericValue(node: ts.Expression): number | undefined {
	if (ts.isNumericLiteral(node)) return Number(node.text);
	if (ts.isParenthesizedExpression(node)) return numericValue(node.expression);
	if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
		const value = numericValue(node.operand);
		return value === undefined ? undefined : -value;
	}
	if (!ts.isBinaryExpression(node)) return undefined;
	const [left, right] = [numericValue(node.left), numericValue(node.right)];
	if (left === undefined || right === undefined) return undefined;
	switch (node.operatorToken.kind) {
		case ts.SyntaxKind.AsteriskToken:
			return left * right;
		case ts.SyntaxKind.PlusToken:
			return left + right;
		case ts.SyntaxKind.MinusToken:
			return left - right;
		case ts.SyntaxKind.SlashToken:
			return left / right;
		case ts.SyntaxKind.LessThanLessThanToken:
			return left << right;
		case ts.SyntaxKind.BarToken:
			return left | right;
		default:
			return undefined;
	}
}

export interface SourceConstant {
	name: string;
	value: number;
	file: string;
	/** Written as a character code (`0x0a`): a byte the code looks for, not an amount. */
	characterCode: boolean;
}

/** An object literal, also inside `Object.freeze(...)`. */
function objectLiteral(node: ts.Expression): ts.ObjectLiteralExpression | undefined {
	if (ts.isObjectLiteralExpression(node)) return node;
	if (ts.isCallExpression(node) && node.arguments.length === 1) return objectLiteral(node.arguments[0]);
	return undefined;
}

/** The numeric constants of a declaration: `NAME = 100`, and `NAME.member` for `NAME = { member: 100 }`. */
function constantsOf(declaration: ts.VariableDeclaration, file: string): SourceConstant[] {
	if (!ts.isIdentifier(declaration.name) || !declaration.initializer) return [];
	const name = declaration.name.text;
	if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return [];
	const value = numericValue(declaration.initializer);
	if (value !== undefined) {
		const characterCode = /^0x[0-9a-f]{1,2}$/i.test(declaration.initializer.getText().trim());
		return [{ name, value, file, characterCode }];
	}
	const members = objectLiteral(declaration.initializer)?.properties ?? [];
	return members.flatMap((member) => {
		if (!ts.isPropertyAssignment(member) || !ts.isIdentifier(member.name)) return [];
		const memberValue = numericValue(member.initializer);
		return memberValue === undefined
			? []
			: [{ name: `${name}.${member.name.text}`, value: memberValue, file, characterCode: false }];
	});
}

/** Every numeric constant of the shipped code (UPPER_CASE names), as written in its sources. */
export function sourceConstants(sources = shippedSources()): SourceConstant[] {
	const found: SourceConstant[] = [];
	for (const source of sources) {
		const visit = (node: ts.Node) => {
			if (ts.isVariableDeclaration(node)) found.push(...constantsOf(node, source.fileName));
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return found;
}

/** A reader of the constants by name; one that is missing, or written twice with different values, fails. */
export function constantReader(constants = sourceConstants()): (name: string) => number {
	return (name) => {
		const values = new Set(constants.filter((constant) => constant.name === name).map((constant) => constant.value));
		if (values.size !== 1) {
			const why = values.size === 0 ? 'no such constant' : `values ${[...values].join(', ')}`;
			throw new Error(`The constant ${name} of nodes/ (scripts/docs/limits.ts reads it): ${why}`);
		}
		return [...values][0];
	};
}
