/**
 * API keys, plans and credits. Every request that passes authentication and the plan check spends one
 * credit; a key whose credits are used up answers 402. Credits default to unlimited.
 */
export const PLANS: {
	basic: { maxPageSize: number; historical: false };
	pro: { maxPageSize: number; historical: true };
} = {
	basic: { maxPageSize: 50, historical: false },
	pro: { maxPageSize: 1000, historical: true },
};

export type PlanName = keyof typeof PLANS;

/** The fixed keys every simulator starts with. */
export const KEYS: { pro: string; basic: string; exhausted: string } = {
	pro: 'sim-pro-key',
	basic: 'sim-basic-key',
	/** Pro plan with 0 credits: every authenticated request answers 402. */
	exhausted: 'sim-exhausted-key',
};

export interface KeyState {
	key: string;
	plan: PlanName;
	/** Credits left; Infinity for unlimited (shown as null in JSON). */
	credits: number;
	/** Credits spent since start / reset. */
	spent: number;
}

export type AuthResult = { ok: true; state: KeyState } | { ok: false; status: 401; message: string };

export class KeyStore {
	private readonly keys = new Map<string, KeyState>();

	constructor() {
		this.reset();
	}

	reset(): void {
		this.keys.clear();
		this.set(KEYS.pro, 'pro');
		this.set(KEYS.basic, 'basic');
		this.set(KEYS.exhausted, 'pro', 0);
	}

	/** Adds or changes a key. `credits` undefined (or null) = unlimited. */
	set(key: string, plan: PlanName, credits?: number | null): void {
		if (!key) throw new Error('key must be a non-empty string');
		if (!(plan in PLANS)) throw new Error(`unknown plan "${plan}" (basic or pro)`);
		if (credits !== undefined && credits !== null && !(Number.isInteger(credits) && credits >= 0)) {
			throw new Error('credits must be a non-negative integer');
		}
		this.keys.set(key, { key, plan, credits: credits ?? Infinity, spent: 0 });
	}

	get(key: string): KeyState | undefined {
		return this.keys.get(key);
	}

	list(): Array<{ key: string; plan: PlanName; credits: number | null; spent: number }> {
		return [...this.keys.values()].map((s) => ({ ...s, credits: Number.isFinite(s.credits) ? s.credits : null }));
	}

	/** Checks the Authorization header: "Bearer <key>" with a known key. */
	authenticate(header: string | undefined): AuthResult {
		if (!header) {
			return { ok: false, status: 401, message: 'Missing API key: send the header "Authorization: Bearer <API_KEY>".' };
		}
		const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
		if (!match) {
			return { ok: false, status: 401, message: 'Malformed Authorization header: expected "Bearer <API_KEY>".' };
		}
		const state = this.keys.get(match[1]);
		if (!state) return { ok: false, status: 401, message: 'Invalid API key.' };
		return { ok: true, state };
	}
}
