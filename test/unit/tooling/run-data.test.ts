/**
 * How a run of `n8n execute` ended, read from what the process left (scripts/n8n/run-data.ts): the run data it
 * printed, its exit code, the signal that ended it and whether that was the harness's own timeout.
 */
import { type CommandResult, parseExecuteOutput } from '../../../scripts/n8n/run-data';

describe('parseExecuteOutput (how a run of `n8n execute` ended)', () => {
	const printed = '{\n"data": { "resultData": { "runData": {} } }\n}\n';
	const result = (extra: Partial<CommandResult>): CommandResult => ({
		code: 0,
		stdout: printed,
		stderr: '',
		durationMs: 1,
		...extra,
	});

	test('a complete run and exit code 0 is ok', () => {
		expect(parseExecuteOutput(result({})).describe()).toBe('ok');
	});

	test('a non-zero exit after a complete run is a failure', () => {
		expect(parseExecuteOutput(result({ code: 1 })).describe()).toBe('n8n execute exited with 1');
	});

	test("the harness's own timeout is a failure", () => {
		const ended = result({ code: 128, signal: 'SIGKILL', timedOut: true });
		expect(parseExecuteOutput(ended).describe()).toBe('n8n execute was killed (SIGKILL) after its timeout');
	});

	test('a crash by a signal after a complete run keeps the run, and is told', () => {
		const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
		try {
			expect(parseExecuteOutput(result({ code: 128, signal: 'SIGSEGV' })).describe()).toBe('ok');
			expect(warn).toHaveBeenCalledWith(expect.stringContaining('n8n execute ended by SIGSEGV'));
		} finally {
			warn.mockRestore();
		}
	});

	test('a crash before the run was printed is a failure with the log', () => {
		const ended = parseExecuteOutput(result({ code: 128, signal: 'SIGSEGV', stdout: 'Starting workflow\n' }));
		expect(ended.ok).toBe(false);
		expect(ended.describe()).toContain('Starting workflow');
	});
});
