package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// runResult is what kc run reports; -json prints it as is.
type runResult struct {
	Kernel  string         `json:"kernel"`
	Device  *deviceJSON    `json:"device"`
	Path    string         `json:"path"` // wgsl, spirv, hlsl-glslang-spirv, hlsl-dxc-spirv or interp
	Groups  [3]int         `json:"groups"`
	Seed    uint64         `json:"seed"`
	Params  map[string]any `json:"params"`
	Buffers []bufferJSON   `json:"buffers"`
	Time    *timeJSON      `json:"time,omitempty"`
}

type deviceJSON struct {
	Name         string `json:"name"`
	Driver       string `json:"driver"`
	API          string `json:"api,omitempty"`
	SubgroupSize int    `json:"subgroup_size"`
}

type bufferJSON struct {
	Name   string            `json:"name"`
	Type   string            `json:"type"`
	Bytes  int               `json:"bytes"`
	FNV64a string            `json:"fnv64a"`
	Sum    string            `json:"sum"`
	Values []json.RawMessage `json:"values,omitempty"`
}

type timeJSON struct {
	Samples  int   `json:"samples"`
	MedianNS int64 `json:"median_ns"`
	MinNS    int64 `json:"min_ns"`
	MaxNS    int64 `json:"max_ns"`
}

func timeJSONOf(ds []time.Duration) *timeJSON {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return &timeJSON{Samples: len(ds), MedianNS: int64(ds[len(ds)/2]), MinNS: int64(ds[0]), MaxNS: int64(ds[len(ds)-1])}
}

// paramsJSON gives the plan's params as JSON numbers.
func paramsJSON(p *runspec.Plan) map[string]any {
	out := map[string]any{}
	for name, v := range p.Params {
		if v.Kind == ir.FloatValue {
			out[name] = v.Float
		} else {
			out[name] = v.Int
		}
	}
	return out
}

// printOutputs writes -o files and prints the run: a header and a
// checksum line (or, with -print, the values) per read_write buffer, or
// the JSON record. outs holds the read_write buffers' final bytes in
// binding order.
func printOutputs(env *cliEnv, k *ir.Kernel, outs [][]byte, o runOptions, res *runResult) error {
	i := 0
	for _, b := range ir.Buffers(k) {
		if b.Access != ir.ReadWrite {
			continue
		}
		data := outs[i]
		i++
		if path, ok := o.outputs[b.Name]; ok {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				return err
			}
		}
		h := fnv.New64a()
		h.Write(data)
		s := ir.ElemScalar(b.Type)
		bj := bufferJSON{Name: b.Name, Type: s.String(), Bytes: len(data), FNV64a: fmt.Sprintf("%016x", h.Sum64()), Sum: sumOf(s, data)}
		if o.print {
			bj.Values = valuesOf(s, data)
		}
		res.Buffers = append(res.Buffers, bj)
	}
	if o.json {
		out, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.stdout, "%s\n", out)
		return err
	}
	if res.Path == "interp" {
		fmt.Fprintf(env.stdout, "# %s on the reference interpreter (subgroup size %d), groups %v, seed %d\n", res.Kernel, res.Device.SubgroupSize, res.Groups, res.Seed)
	} else {
		fmt.Fprintf(env.stdout, "# %s on %s (%s %s), groups %v, seed %d\n", res.Kernel, res.Device.Name, res.Device.Driver, res.Path, res.Groups, res.Seed)
	}
	if t := res.Time; t != nil {
		fmt.Fprintf(env.stdout, "time: median %v, min %v, max %v over %d samples\n", time.Duration(t.MedianNS), time.Duration(t.MinNS), time.Duration(t.MaxNS), t.Samples)
	}
	for _, b := range res.Buffers {
		if o.print {
			fmt.Fprintf(env.stdout, "%s:", b.Name)
			for _, v := range b.Values {
				fmt.Fprintf(env.stdout, " %s", v)
			}
			fmt.Fprintln(env.stdout)
			continue
		}
		fmt.Fprintf(env.stdout, "%s: %d bytes, fnv64a %s, sum %s\n", b.Name, b.Bytes, b.FNV64a, b.Sum)
	}
	return nil
}

// valuesOf lists a buffer's elements as JSON values: numbers, and the
// strings "NaN", "+Inf" and "-Inf" for floats JSON has no number for.
func valuesOf(t ir.Scalar, data []byte) []json.RawMessage {
	size := max(t.Size(), 1)
	out := make([]json.RawMessage, 0, len(data)/size)
	for i := 0; i+size <= len(data); i += size {
		v := scalarString(t, data, i)
		if v == "NaN" || v == "+Inf" || v == "-Inf" {
			v = strconv.Quote(v)
		}
		out = append(out, json.RawMessage(v))
	}
	return out
}

func sumOf(t ir.Scalar, data []byte) string {
	switch t {
	case ir.F32:
		var s float64
		for i := 0; i+4 <= len(data); i += 4 {
			s += float64(math.Float32frombits(binary.LittleEndian.Uint32(data[i:])))
		}
		return strconv.FormatFloat(s, 'g', 9, 64)
	case ir.I32:
		var s int64
		for i := 0; i+4 <= len(data); i += 4 {
			s += int64(int32(binary.LittleEndian.Uint32(data[i:])))
		}
		return strconv.FormatInt(s, 10)
	case ir.U32:
		var s uint64
		for i := 0; i+4 <= len(data); i += 4 {
			s += uint64(binary.LittleEndian.Uint32(data[i:]))
		}
		return strconv.FormatUint(s, 10)
	case ir.F16:
		var s float64
		for i := 0; i+2 <= len(data); i += 2 {
			s += interp.F16BitsToF64(binary.LittleEndian.Uint16(data[i:]))
		}
		return strconv.FormatFloat(s, 'g', 6, 64)
	case ir.I8, ir.U8:
		var s int64
		for _, b := range data {
			if t == ir.I8 {
				s += int64(int8(b))
			} else {
				s += int64(b)
			}
		}
		return strconv.FormatInt(s, 10)
	case ir.BF16:
		var s float64
		for i := 0; i+2 <= len(data); i += 2 {
			s += float64(interp.BF16BitsToF32(binary.LittleEndian.Uint16(data[i:])))
		}
		return strconv.FormatFloat(s, 'g', 6, 64)
	}
	return "-"
}
