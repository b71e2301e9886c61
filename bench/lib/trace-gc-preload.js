// Loaded with `--require` (NODE_OPTIONS) into an n8n process of the bench. Node refuses `--trace-gc` in
// NODE_OPTIONS, but V8 takes it at run time: every collection of the process is then logged to stdout.
// SIGUSR2 (which n8n does not use) makes a full collection and logs the process's memory right after it
// (V8's trace leaves out the memory outside its heap: buffers and what native code allocates).
const v8 = require('node:v8');
const vm = require('node:vm');

v8.setFlagsFromString('--trace-gc');
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');
process.on('SIGUSR2', () => {
	collect();
	process.stdout.write(`[memory after full gc] ${process.pid} ${JSON.stringify(process.memoryUsage())}\n`);
});
