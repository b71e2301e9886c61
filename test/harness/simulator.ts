/**
 * One simulator for a whole test file, reset before each test: `const sim = useSimulator({ domains: 2000 })`
 * at the top level of a test file, then `sim()` inside the tests.
 */
import { startSimulator, type Simulator, type SimulatorOptions } from '../simulator';

export function useSimulator(options: SimulatorOptions): () => Simulator {
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
	return () => {
		if (!sim) throw new Error('The simulator is not running: call sim() inside a test');
		return sim;
	};
}
