// check.mjs validates WGSL files with two independent front ends:
//
//   tint  Dawn's WGSL compiler through the npm `webgpu` binding, on Dawn's
//         null backend (no GPU needed), with shader-f16 and subgroups
//         requested when the adapter has them;
//   naga  wgpu's shader translator compiled to WebAssembly (npm naga-wasm):
//         parse + validate.
//
// Usage: node check.mjs [-validators tint,naga] FILE.wgsl...
//
// Every message is printed as `file:line:col: validator: type: message`.
//
// Dawn's Node binding (webgpu 0.6.2, Node 20) crashes now and then when one
// process compiles many modules (SIGSEGV, std::system_error, "The futex
// facility returned an unexpected error code", a deadlock) after a dozen
// modules or more, and
// when naga-wasm shares the process with it. So this process never loads
// Dawn: it runs Tint in child processes of at most tintChunk files each
// (a chunk that crashes or hangs for 15 s is retried one file per process;
// a file that does so twice is reported as an error) and then naga-wasm
// itself.
//
// The exit status is 1 when any validator reports an error in any file,
// 2 on a usage or setup problem, 0 otherwise.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// tintChunk is the most files one Dawn process compiles: 40 runs of 8
// files each passed where a run of 16 crashed every time.
const tintChunk = 8;

function usage(msg) {
	console.error(`check.mjs: ${msg}\nusage: node check.mjs [-validators tint,naga] FILE.wgsl...`);
	process.exit(2);
}

let validators = ['tint', 'naga'];
let worker = false; // -tint-worker: compile with Dawn in this process
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === '-tint-worker') {
		worker = true;
	} else if (argv[i] === '-validators') {
		if (i + 1 >= argv.length) usage('-validators needs a value');
		validators = argv[++i].split(',').filter((v) => v !== '');
		for (const v of validators) {
			if (v !== 'tint' && v !== 'naga') usage(`unknown validator ${v}`);
		}
	} else {
		files.push(argv[i]);
	}
}
if (files.length === 0) usage('no files');

// tintDevice returns a GPUDevice on Dawn's null backend.
async function tintDevice() {
	const { create, globals } = await import('webgpu');
	Object.assign(globalThis, globals);
	const gpu = create(['backend=null']);
	const adapter = await gpu.requestAdapter();
	if (!adapter) throw new Error('tint: no adapter on the null backend');
	const wanted = ['shader-f16', 'subgroups'];
	const requiredFeatures = wanted.filter((f) => adapter.features.has(f));
	return adapter.requestDevice({ requiredFeatures });
}

// tintCheck returns the compilation messages for one WGSL source.
async function tintCheck(device, code) {
	// The error scope keeps Dawn from reporting the error as uncaptured.
	device.pushErrorScope('validation');
	const module = device.createShaderModule({ code });
	const info = await module.getCompilationInfo();
	await device.popErrorScope();
	return info.messages.map((m) => ({
		line: m.lineNum,
		col: m.linePos,
		type: m.type,
		text: m.message,
	}));
}

// nagaSubgroups matches the subgroups enable directive, which naga 30
// rejects as "not yet supported" although it implements the operations.
const nagaSubgroups = /^enable subgroups;$/m;

// nagaCheck parses and validates one WGSL source with naga-wasm.
function nagaCheck(naga, code) {
	const msgs = [];
	const m = nagaSubgroups.exec(code);
	if (m) {
		const line = code.slice(0, m.index).split('\n').length;
		msgs.push({ line, col: 1, type: 'info', text: 'naga rejects `enable subgroups;`: validated without the directive' });
		// Same length and line count, so positions stay put.
		code = code.replace(nagaSubgroups, '// ' + m[0].slice(3));
	}
	let module;
	let info;
	try {
		module = naga.parseWgsl(code);
		info = naga.validate(module);
		return msgs;
	} catch (e) {
		const text = String(e.formatted ?? e.message ?? e);
		// naga's report carries "┌─ wgsl:LINE:COL"; take the first location.
		const loc = /wgsl:(\d+):(\d+)/.exec(text);
		return [...msgs, {
			line: loc ? Number(loc[1]) : 0,
			col: loc ? Number(loc[2]) : 0,
			type: 'error',
			text: `${e.kind ?? 'error'}: ${text.replace(/\s+/g, ' ').trim()}`,
		}];
	} finally {
		info?.free?.();
		module?.free?.();
	}
}

function report(file, who, msgs) {
	let failed = false;
	for (const m of msgs) {
		console.log(`${file}:${m.line}:${m.col}: ${who}: ${m.type}: ${m.text}`);
		if (m.type === 'error') failed = true;
	}
	return failed;
}

// tintWorker compiles every file with Dawn in this process.
async function tintWorker(sources) {
	let failed = false;
	const device = await tintDevice();
	for (let i = 0; i < files.length; i++) {
		failed = report(files[i], 'tint', await tintCheck(device, sources[i])) || failed;
	}
	device.destroy();
	return failed;
}

// tintRun runs a worker on some files; ok is false when it crashed.
function tintRun(some) {
	const self = fileURLToPath(import.meta.url);
	// A chunk takes about a second; a worker past the timeout has deadlocked.
	const r = spawnSync(process.execPath, [self, '-tint-worker', ...some], { encoding: 'utf8', timeout: 15000, killSignal: 'SIGKILL' });
	const ok = r.status === 0 || r.status === 1;
	return { ok, failed: r.status === 1, out: r.stdout ?? '', err: r.stderr ?? '', why: r.signal ?? `exit ${r.status}` };
}

// tintAll validates every file with Tint through worker processes.
function tintAll() {
	let failed = false;
	for (let i = 0; i < files.length; i += tintChunk) {
		const chunk = files.slice(i, i + tintChunk);
		let r = tintRun(chunk);
		if (r.ok) {
			process.stdout.write(r.out);
			failed = failed || r.failed;
			continue;
		}
		for (const f of chunk) {
			r = tintRun([f]);
			if (!r.ok) {
				r = tintRun([f]);
			}
			if (r.ok) {
				process.stdout.write(r.out);
				failed = failed || r.failed;
				continue;
			}
			const last = r.err.trim().split('\n').pop() ?? '';
			console.log(`${f}:0:0: tint: error: Dawn crashed compiling this file twice (${r.why}): ${last}`);
			failed = true;
		}
	}
	return failed;
}

async function main() {
	const sources = files.map((f) => readFileSync(f, 'utf8'));
	if (worker) {
		process.exit((await tintWorker(sources)) ? 1 : 0);
	}
	let failed = false;
	if (validators.includes('tint')) {
		failed = tintAll();
	}
	if (validators.includes('naga')) {
		const naga = await import('naga-wasm');
		for (let i = 0; i < files.length; i++) {
			failed = report(files[i], 'naga', nagaCheck(naga, sources[i])) || failed;
		}
	}
	process.exit(failed ? 1 : 0);
}

main().catch((e) => {
	console.error(`check.mjs: ${e.stack ?? e}`);
	process.exit(2);
});
