/**
 * One simulator for a whole test file, reset before each test: `const sim = useSimulator({ domains: 2000 })`
 * at the top level of a test file, then `sim.url`, `sim.calls('bulk')`... inside hooks and tests (`sim()`
 * gives the running simulator itself). Hooks a file registers after this call run after the fixture's, so
 * a file's own `beforeAll`/`beforeEach` already sees a started, reset simulator.
 */
import { startSimulator, type Simulator, type SimulatorOptions } from '../simulator';

/** The file's simulator: its members forward to the running one, and calling it returns that one. */
export type SimulatorFixture = Simulator & (() => Simulator);

export function useSimulator(options: SimulatorOptions): SimulatorFixture {
	let sim: Simulator | undefined;
	beforeAll(async () => {
		sim = await startSimulator(options);
	});
	afterAll(async () => {
		await sim?.close();
	});
	beforeEach(() => {
		sim?.reset();
	});
	const running = (): Simulator => {
		if (!sim)
			throw new Error('The simulator is not running: use it inside a hook or a test, not at the top level of the file');
		return sim;
	};
	// The file refers to one constant, while the simulator exists only between beforeAll and afterAll.
	return new Proxy(running, {
		get(_target, property) {
			const current = running();
			const value: unknown = Reflect.get(current, property);
			return typeof value === 'function' ? value.bind(current) : value;
		},
	}) as SimulatorFixture;
}
