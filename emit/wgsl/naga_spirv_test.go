package wgsl_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/internal/kctest"
)

// coopOps lists the cooperative-matrix instructions of a SPIR-V module in
// order, with what must agree between two translations of one kernel: the
// loaded type (rows x cols, use) and the memory layout of each load and
// store, and each multiply-add. Ids and strides (run-time values) differ.
func coopOps(t *testing.T, words []uint32) []string {
	t.Helper()
	consts := map[uint32]uint32{}    // OpConstant result -> value (32-bit)
	types := map[uint32]string{}     // OpTypeCooperativeMatrixKHR result -> "RxC use U"
	pending := map[uint32][]uint32{} // coop types whose operands are resolved below
	var ops []string
	for p := 5; p < len(words); {
		n, op := int(words[p]>>16), words[p]&0xffff
		if n == 0 || p+n > len(words) {
			t.Fatalf("malformed SPIR-V at word %d", p)
		}
		w := words[p : p+n]
		switch op {
		case 43: // OpConstant
			if n == 4 {
				consts[w[2]] = w[3]
			}
		case 4456: // OpTypeCooperativeMatrixKHR result comp scope rows cols use
			pending[w[1]] = w[2:]
		case 4457: // OpCooperativeMatrixLoadKHR type result ptr layout [stride]
			ops = append(ops, fmt.Sprintf("load %s layout %d", coopType(types, pending, consts, w[1]), consts[w[4]]))
		case 4458: // OpCooperativeMatrixStoreKHR ptr object layout [stride]
			ops = append(ops, fmt.Sprintf("store layout %d", consts[w[3]]))
		case 4459: // OpCooperativeMatrixMulAddKHR
			ops = append(ops, "muladd "+coopType(types, pending, consts, w[1]))
		}
		p += n
	}
	return ops
}

func coopType(types map[uint32]string, pending map[uint32][]uint32, consts map[uint32]uint32, id uint32) string {
	if s, ok := types[id]; ok {
		return s
	}
	o := pending[id]
	if len(o) < 5 {
		return "?"
	}
	s := fmt.Sprintf("%dx%d use %d", consts[o[2]], consts[o[3]], consts[o[4]])
	types[id] = s
	return s
}

// TestCoopMatNagaSPIRV: naga's own SPIR-V for kc's wgpu-dialect WGSL has
// the cooperative-matrix loads, stores and multiply-adds of kc's KHR
// SPIR-V for the same kernel, in the same order, with the same types and
// memory layouts: a second opinion that coopLoad/coopLoadT (and the
// stores) carry kc's col_major/row_major as naga means them.
func TestCoopMatNagaSPIRV(t *testing.T) {
	node := kctest.Tool(t, "node")
	dir := filepath.Join(kctest.Root(t), "tools", "tint")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "naga-wasm")); err != nil {
		kctest.Missing(t, "tools/tint/node_modules is missing: run scripts/test.sh or npm ci in tools/tint")
	}
	// Every layout on buffers and shared memory, f16 into f32 and f16.
	src := coopKernel("\tshared t [256]f16\n" +
		"\tt[local_index] = h[local_index]\n" +
		"\tworkgroupBarrier()\n" +
		"\tlet a = coopLoad<coopmat<f16, 16, 16, a>>(t, 0, 16, row_major)\n" +
		"\tlet b = coopLoad<coopmat<f16, 16, 16, b>>(h, 256, 16, col_major)\n" +
		"\tlet a2 = coopLoad<coopmat<f16, 16, 16, a>>(h, 512, 16, col_major)\n" +
		"\tlet b2 = coopLoad<coopmat<f16, 16, 16, b>>(t, 0, 16, row_major)\n" +
		"\tvar acc = coopLoad<coopmat<f32, 16, 16, acc>>(c, 0, 16, col_major)\n" +
		"\tacc = coopMulAdd(a, b, acc)\n" +
		"\tvar acc16 coopmat<f16, 16, 16, acc>\n" +
		"\tacc16 = coopMulAdd(a2, b2, acc16)\n" +
		"\tcoopStore(acc, c, 0, 16, row_major)\n" +
		"\tcoopStore(acc16, h, 0, 16, col_major)\n")
	m := parseSrc(t, "k.kc", src)
	a, err := wgsl.Emit(m, wgsl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, out := filepath.Join(t.TempDir(), "k.wgsl"), filepath.Join(t.TempDir(), "k.spv")
	writeFile(t, in, a.Code)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if msg, err := exec.CommandContext(ctx, node, filepath.Join(dir, "naga_spirv.mjs"), in, out).CombinedOutput(); err != nil {
		t.Fatalf("naga_spirv.mjs: %v\n%s\n%s", err, msg, a.Code)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	naga := make([]uint32, len(b)/4)
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, naga); err != nil {
		t.Fatal(err)
	}
	kc, err := spirv.Emit(m, spirv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, want := coopOps(t, naga), coopOps(t, kc.Words)
	if len(want) != 9 {
		t.Fatalf("kc's SPIR-V has %d cooperative ops, want 9: %v", len(want), want)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("naga's SPIR-V of kc's WGSL:\n%v\nkc's SPIR-V:\n%v", got, want)
	}
}
