// check.mjs validates WGSL files with two independent front ends:
//
//   tint  Dawn's WGSL compiler through the npm `webgpu` binding, on Dawn's
//         null backend (no GPU needed), with shader-f16 and subgroups
//         requested when the adapter has them (and, for files enabling
//         chromium_experimental_subgroup_matrix, in worker processes of
//         their own, chromium-experimental-subgroup-matrix behind Dawn's
//         allow_unsafe_apis toggle);
//   naga  wgpu's shader translator compiled to WebAssembly (npm naga-wasm):
//         parse + validate.
//
// Usage: node check.mjs [-validators tint,naga] FILE.wgsl...
//
// Every message is printed as `file:line:col: validator: type: message`.
//
// Each cooperative-matrix dialect has one validator: a file enabling
// wgpu_cooperative_matrix (naga's) is not given to Tint, one enabling
// chromium_experimental_subgroup_matrix (Tint's) not to naga; an info
// message says so.
//
// Dawn's Node binding (webgpu 0.6.2, Node 20) crashes now and then when one
// process compiles many modules (SIGSEGV, std::system_error, "The futex
// facility returned an unexpected error code", a deadlock) after a dozen
// modules or more, and
// when naga-wasm shares the process with it, and how often depends on the
// text of the script that loads it. So this process never loads Dawn: it
// runs Tint in child processes (tint_worker.mjs, kept small) of at most
// tintChunk files each (a chunk that crashes or hangs for 15 s before its
// last line is retried one file per process; a file that does so twice is
// reported as an error) and then naga-wasm itself.
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
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === '-validators') {
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

// The directives of the two cooperative-matrix dialects.
const wgpuMatrix = /^enable wgpu_cooperative_matrix;$/m;
const chromiumMatrix = /^enable chromium_experimental_subgroup_matrix;$/m;

// tintRun runs a worker on some files; ok is false when it crashed. sm
// asks for a device with subgroup matrices.
function tintRun(some, sm) {
	const worker = fileURLToPath(new URL('tint_worker.mjs', import.meta.url));
	const args = sm ? [worker, '-subgroup-matrix', ...some] : [worker, ...some];
	// A chunk takes about a second; a worker past the timeout has deadlocked.
	const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 15000, killSignal: 'SIGKILL' });
	const out = r.stdout ?? '';
	const at = out.lastIndexOf(doneMark);
	if (at >= 0) {
		// Every file was compiled and reported: a crash after that (Dawn's
		// teardown, which crashes or not as code elsewhere in this script
		// changes) does not matter.
		return { ok: true, failed: out[at + doneMark.length] === '1', out: out.slice(0, at), err: r.stderr ?? '' };
	}
	return { ok: false, out, err: r.stderr ?? '', why: r.signal ?? `exit ${r.status}` };
}

// doneMark starts the last line a worker prints, after all its results.
const doneMark = '#tint_worker done ';

// tintAll validates every file with Tint through worker processes, those
// of Chromium's cooperative-matrix dialect in chunks of their own, and
// none of wgpu's.
function tintAll(sources) {
	let failed = false;
	const plain = [];
	const sm = [];
	files.forEach((f, i) => {
		if (wgpuMatrix.test(sources[i])) {
			console.log(`${f}:1:1: tint: info: not validated: Tint does not know wgpu_cooperative_matrix (naga validates it)`);
		} else {
			(chromiumMatrix.test(sources[i]) ? sm : plain).push(f);
		}
	});
	const chunks = [];
	for (const group of [plain, sm]) {
		for (let i = 0; i < group.length; i += tintChunk) {
			chunks.push({ files: group.slice(i, i + tintChunk), sm: group === sm });
		}
	}
	for (const { files: chunk, sm: withSM } of chunks) {
		let r = tintRun(chunk, withSM);
		if (r.ok) {
			process.stdout.write(r.out);
			failed = failed || r.failed;
			continue;
		}
		for (const f of chunk) {
			r = tintRun([f], withSM);
			if (!r.ok) {
				r = tintRun([f], withSM);
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
	let failed = false;
	if (validators.includes('tint')) {
		failed = tintAll(sources);
	}
	if (validators.includes('naga')) {
		const naga = await import('naga-wasm');
		for (let i = 0; i < files.length; i++) {
			const msgs = chromiumMatrix.test(sources[i])
				? [{ line: 1, col: 1, type: 'info', text: 'not validated: naga does not know chromium_experimental_subgroup_matrix (Tint validates it)' }]
				: nagaCheck(naga, sources[i]);
			failed = report(files[i], 'naga', msgs) || failed;
		}
	}
	process.exit(failed ? 1 : 0);
}

main().catch((e) => {
	console.error(`check.mjs: ${e.stack ?? e}`);
	process.exit(2);
});
