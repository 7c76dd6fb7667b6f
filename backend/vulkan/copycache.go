//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"os"

	"github.com/kcgo/kc/backend"
)

// Standalone copies (backend.CopyDevice). A copy submitted on its own, as
// Device.Copy outside a scope does, is recorded into a command buffer of its
// own (a full barrier, the copy, a host barrier when the destination is
// mapped) that is kept, keyed by the copy, and resubmitted the next time
// the same copy is asked for: recording, vkBeginCommandBuffer and
// vkEndCommandBuffer go from the fixed cost of a small transfer, as they
// do from a graph's replay. The first barrier orders the copy after every
// earlier submission, so a kept command buffer needs nothing from the
// state at the time it was recorded. At most maxCopyFrames are kept (least
// recently used out); releasing a buffer drops the ones that copy it.
// KC_VULKAN_COPYCACHE=off records every copy afresh.

// envCopyCache turns the kept copies off ("off"), for measuring.
const envCopyCache = "KC_VULKAN_COPYCACHE"

// maxCopyFrames bounds the kept copy command buffers.
const maxCopyFrames = 16

// copyKey identifies a standalone copy.
type copyKey struct {
	src, dst       uintptr
	srcOff, dstOff uint64
	size           uint64
}

// copyFrame is a kept copy's frame and when it was last used.
type copyFrame struct {
	k    copyKey
	f    *frame
	used uint64
}

// SubmitCopy implements backend.CopyDevice.
func (d *device) SubmitCopy(src backend.BufferImpl, srcOff int64, dst backend.BufferImpl, dstOff int64, size int64) error {
	if err := d.usable(); err != nil {
		return err
	}
	if d.open != nil {
		return errors.New("vulkan: SubmitCopy with an encoder open")
	}
	s, ok1 := src.(*buffer)
	t, ok2 := dst.(*buffer)
	if !ok1 || !ok2 || s.raw == nil || t.raw == nil {
		return errors.New("vulkan: Copy with a released or foreign buffer")
	}
	if err := d.flushUploads(); err != nil {
		return err
	}
	k := copyKey{s.raw.handle, t.raw.handle, uint64(srcOff), uint64(dstOff), uint64(size)}
	if err := d.reclaim(false); err != nil {
		return err
	}
	d.copyTick++
	c := d.findCopy(k)
	if c != nil && !c.f.pendingCopy {
		c.used = d.copyTick
		return d.submitCopyFrame(c.f)
	}
	if d.noCopyCache || c != nil { // off, or the kept one is still running
		e, err := d.NewEncoder()
		if err != nil {
			return err
		}
		if err := e.Copy(src, srcOff, dst, dstOff, size); err != nil {
			e.Discard()
			return err
		}
		_, err = e.Submit(context.Background(), nil)
		return err
	}
	f, err := d.recordCopy(s, t, k)
	if err != nil {
		return err
	}
	d.keepCopy(copyFrame{k: k, f: f, used: d.copyTick})
	return d.submitCopyFrame(f)
}

// recordCopy records a standalone copy into a frame of its own, resubmittable.
func (d *device) recordCopy(s, t *buffer, k copyKey) (*frame, error) {
	if len(d.inflight) >= maxInflight {
		if err := d.reclaim(true); err != nil {
			return nil, err
		}
	}
	f, err := d.beginFrame(0)
	if err != nil {
		return nil, err
	}
	f.serial, f.commands, f.tsUsed = 0, 0, 0
	f.haz.reset()
	f.hostRead = false
	d.resetPools(f)
	d.copyCmd(f, k.src, k.srcOff, k.dst, k.dstOff, k.size)
	if t.mapped {
		d.hostBarrier(f)
	}
	if err := check("vkEndCommandBuffer", d.end(f.cmd)); err != nil {
		d.free = append(d.free, f)
		return nil, err
	}
	f.copyKept = true
	return f, nil
}

// submitCopyFrame submits a kept copy's frame.
func (d *device) submitCopyFrame(f *frame) error {
	if len(d.inflight) >= maxInflight {
		if err := d.reclaim(true); err != nil {
			return err
		}
	}
	if err := d.queueSubmit(f); err != nil {
		return err
	}
	f.pendingCopy = true
	return nil
}

func (d *device) findCopy(k copyKey) *copyFrame {
	for i := range d.copies {
		if d.copies[i].k == k {
			return &d.copies[i]
		}
	}
	return nil
}

// keepCopy adds c, dropping the least recently used kept copy when full.
func (d *device) keepCopy(c copyFrame) {
	if len(d.copies) < maxCopyFrames {
		d.copies = append(d.copies, c)
		return
	}
	old := 0
	for i := range d.copies {
		if d.copies[i].used < d.copies[old].used {
			old = i
		}
	}
	d.dropCopyFrame(d.copies[old].f)
	d.copies[old] = c
}

// dropCopies forgets the kept copies that read or write the VkBuffer h.
func (d *device) dropCopies(h uintptr) {
	keep := d.copies[:0]
	for _, c := range d.copies {
		if c.k.src == h || c.k.dst == h {
			d.dropCopyFrame(c.f)
		} else {
			keep = append(keep, c)
		}
	}
	d.copies = keep
}

// dropCopyFrame returns a kept copy's frame to the free list (now, or when
// its submission completes).
func (d *device) dropCopyFrame(f *frame) {
	f.copyKept = false
	if !f.pendingCopy {
		d.free = append(d.free, f)
	}
}

// copyCacheOff reads KC_VULKAN_COPYCACHE.
func copyCacheOff() bool { return os.Getenv(envCopyCache) == "off" }
