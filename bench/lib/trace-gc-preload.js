// Loaded with `--require` (NODE_OPTIONS) into an n8n process of the bench. Node refuses `--trace-gc` in
// NODE_OPTIONS, but V8 takes it at run time: every collection of the process is then logged to stdout.
// SIGUSR2 (which n8n does not use) makes a full collection, so that the bench reads what a run left behind.
const v8 = require('node:v8');
const vm = require('node:vm');

v8.setFlagsFromString('--trace-gc');
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');
process.on('SIGUSR2', () => collect());
