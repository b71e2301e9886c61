/**
 * The messages of the shipped code, read from its TypeScript sources: the errors' messages (operationError,
 * buildApiError, a `message` set on an error, the `[message, description]` texts of transport/failures.ts, the
 * credential's Test messages) and the hints (addHint, a list of hints, a `...Hint` text), followed through the
 * helpers that pass a message on (a parameter that reaches one of these is followed to every call of its function).
 * A message is its fixed parts and its variable ones (`${...}`, a call): docs/troubleshooting.md must hold each.
 */
import ts from 'typescript';

import { shippedSources } from './sourceFacts';

/** A piece of a message: its words, or `undefined` where the code puts a value. */
type Piece = string | undefined;

export interface SourceMessage {
	kind: 'error' | 'hint';
	/** The message with `…` for each value. */
	text: string;
	/** Its fixed parts, in order. */
	parts: string[];
	file: string;
	line: number;
}

type FunctionLike = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration;

/** The name a function is called by: its own, or the variable's it is assigned to. */
function functionName(fn: FunctionLike): string | undefined {
	if ((ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) && fn.name) return fn.name.getText();
	if (ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name)) return fn.parent.name.text;
	return undefined;
}

/** The declaration of `name` seen from `from`: a const in an enclosing block or the file, or a parameter. */
function declarationOf(name: string, from: ts.Node): ts.VariableDeclaration | ts.ParameterDeclaration | undefined {
	for (let at: ts.Node | undefined = from; at; at = at.parent) {
		if (ts.isFunctionLike(at)) {
			const parameter = at.parameters.find((candidate) => candidate.name.getText() === name);
			if (parameter) return parameter;
		}
		if (ts.isBlock(at) || ts.isSourceFile(at)) {
			for (const statement of at.statements) {
				if (!ts.isVariableStatement(statement)) continue;
				const found = statement.declarationList.declarations.find(
					(declaration) => ts.isIdentifier(declaration.name) && declaration.name.text === name,
				);
				if (found) return found;
			}
		}
	}
	return undefined;
}

/** A function's parameters that carry a message on: `name` → parameter positions. */
type Carriers = Map<string, Set<number>>;

/**
 * The alternatives of a text expression, each a list of pieces. A parameter that is the whole text (`whole`, not a
 * part of a longer one) is added to `carriers`: its function passes a message on.
 */
function pieces(node: ts.Expression, carriers: Carriers, depth = 0, whole = true): Piece[][] {
	if (depth > 8) return [[undefined]];
	if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [[node.text]];
	if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) {
		return pieces(node.expression, carriers, depth, whole);
	}
	if (ts.isTemplateExpression(node)) {
		let result: Piece[][] = [[node.head.text]];
		for (const span of node.templateSpans) {
			// A value chosen inside a sentence (`entry`/`entries`) is a value: only a text that is one thing is words.
			const inner = pieces(span.expression, carriers, depth + 1, false);
			const values = inner.length === 1 && inner[0].length <= 3 ? inner : [[undefined]];
			result = result.flatMap((before) => values.map((value) => [...before, ...value, span.literal.text]));
		}
		return result;
	}
	if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
		const [left, right] = [
			pieces(node.left, carriers, depth + 1, false),
			pieces(node.right, carriers, depth + 1, false),
		];
		return left.flatMap((before) => right.map((after) => [...before, ...after])).slice(0, 4);
	}
	if (ts.isConditionalExpression(node)) {
		const [yes, no] = [node.whenTrue, node.whenFalse];
		return [...pieces(yes, carriers, depth + 1, whole), ...pieces(no, carriers, depth + 1, whole)];
	}
	if (ts.isIdentifier(node)) {
		const declaration = declarationOf(node.text, node);
		if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer) {
			return pieces(declaration.initializer, carriers, depth + 1, whole);
		}
		if (whole && declaration && ts.isParameter(declaration)) {
			const fn = declaration.parent as FunctionLike;
			const name = functionName(fn);
			if (name) {
				const positions = carriers.get(name) ?? new Set<number>();
				positions.add(fn.parameters.indexOf(declaration));
				carriers.set(name, positions);
			}
		}
	}
	return [[undefined]];
}

/** The label positions of `message` in a tuple type (`[message: string, description: string]`). */
function messagePosition(type: ts.TypeNode | undefined): number | undefined {
	const text = type?.getText() ?? '';
	const tuple = /\[([^[\]]*\bmessage: string[^[\]]*)\]/.exec(text);
	if (!tuple) return undefined;
	return tuple[1].split(',').findIndex((label) => label.trim().startsWith('message:'));
}

/** The type annotation that holds an array literal's shape: of its function, or of the variable it is in. */
function tupleType(node: ts.Node): ts.TypeNode | undefined {
	for (let at = node.parent; at; at = at.parent) {
		if ((ts.isFunctionDeclaration(at) || ts.isArrowFunction(at)) && at.type) return at.type;
		if (ts.isVariableDeclaration(at)) return at.type;
	}
	return undefined;
}

interface Found {
	kind: SourceMessage['kind'];
	expression: ts.Expression;
}

const kindOf = (name: string): SourceMessage['kind'] => (/hint/i.test(name) ? 'hint' : 'error');

/** What a function named like a message or a hint gives: an arrow's body, or its return statements' values. */
function givenBy(node: ts.Node): ts.Expression[] {
	if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) return [node.body];
	if (!ts.isArrowFunction(node) && !ts.isFunctionDeclaration(node)) return ts.isExpression(node) ? [node] : [];
	const returned: ts.Expression[] = [];
	const visit = (child: ts.Node) => {
		if (ts.isReturnStatement(child) && child.expression) returned.push(child.expression);
		else if (!ts.isFunctionLike(child)) ts.forEachChild(child, visit);
	};
	if (node.body) ts.forEachChild(node.body, visit);
	return returned;
}

/** The text expressions of one node that are a message or a hint. */
function foundAt(node: ts.Node, carriers: Map<string, Map<number, SourceMessage['kind']>>): Found[] {
	if (ts.isCallExpression(node)) {
		const callee = node.expression.getText();
		const name = callee.split('.').pop() as string;
		const args = node.arguments;
		if (name === 'operationError' && args[1]) return [{ kind: 'error', expression: args[1] }];
		if (name === 'addHint' && args[1]) return [{ kind: 'hint', expression: args[1] }];
		if (/hints\.push$/i.test(callee)) return args.map((expression) => ({ kind: 'hint', expression }));
		if (name === 'buildApiError' && args[1] && ts.isObjectLiteralExpression(args[1])) {
			const message = args[1].properties.find((property) => property.name?.getText() === 'message');
			if (message && ts.isPropertyAssignment(message)) return [{ kind: 'error', expression: message.initializer }];
			if (message && ts.isShorthandPropertyAssignment(message)) return [{ kind: 'error', expression: message.name }];
		}
		const positions = carriers.get(name);
		if (positions) {
			return [...positions].flatMap(([at, kind]) => (args[at] ? [{ kind, expression: args[at] }] : []));
		}
	}
	if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
		if (ts.isPropertyAccessExpression(node.left) && node.left.name.text === 'message') {
			return [{ kind: 'error', expression: node.right }];
		}
	}
	if (ts.isArrayLiteralExpression(node)) {
		const position = messagePosition(tupleType(node));
		const element = position === undefined ? undefined : node.elements[position];
		if (element && !ts.isArrayLiteralExpression(element)) return [{ kind: 'error', expression: element }];
	}
	const named = ts.isVariableDeclaration(node) || ts.isFunctionDeclaration(node) ? node.name?.getText() : undefined;
	if (named && /^[a-z]\w*(?:message|hint)$/i.test(named) && /^[a-z]/.test(named)) {
		const value = ts.isVariableDeclaration(node) ? node.initializer : node;
		return value ? givenBy(value).map((expression) => ({ kind: kindOf(named), expression })) : [];
	}
	return [];
}

/** Every message and hint of the shipped code (see the top of this file), each once. */
export function sourceMessages(sources = shippedSources()): { messages: SourceMessage[]; unreadable: string[] } {
	const carriers = new Map<string, Map<number, SourceMessage['kind']>>();
	let found: Array<Found & { file: string }> = [];
	for (let pass = 0, known = -1; pass < 6 && known !== carriersSize(carriers); pass++) {
		known = carriersSize(carriers);
		found = [];
		for (const source of sources) {
			const visit = (node: ts.Node) => {
				for (const entry of foundAt(node, carriers)) found.push({ ...entry, file: source.fileName });
				ts.forEachChild(node, visit);
			};
			visit(source);
		}
		for (const entry of found) {
			const met: Carriers = new Map();
			pieces(entry.expression, met);
			for (const [name, positions] of met) {
				const known = carriers.get(name) ?? new Map<number, SourceMessage['kind']>();
				for (const position of positions) if (!known.has(position)) known.set(position, entry.kind);
				carriers.set(name, known);
			}
		}
	}
	return collect(found);
}

function carriersSize(carriers: Map<string, Map<number, unknown>>): number {
	return [...carriers.values()].reduce((sum, positions) => sum + positions.size, 0);
}

/** The words that make a part worth looking for: three letters in a row. */
const significant = (part: string) => /\p{L}{3}/u.test(part);

function collect(found: Array<Found & { file: string }>): { messages: SourceMessage[]; unreadable: string[] } {
	const messages = new Map<string, SourceMessage>();
	const unreadable = new Set<string>();
	for (const { kind, expression, file } of found) {
		const line = expression.getSourceFile().getLineAndCharacterOfPosition(expression.getStart()).line + 1;
		for (const alternative of pieces(expression, new Map())) {
			const parts = alternative.filter((piece): piece is string => piece !== undefined && significant(piece));
			const text = alternative.map((piece) => piece ?? '…').join('');
			if (parts.length === 0) unreadable.add(`${file}:${line} ${text}`);
			else if (!messages.has(text)) messages.set(text, { kind, text, parts, file, line });
		}
	}
	return { messages: [...messages.values()], unreadable: [...unreadable] };
}
