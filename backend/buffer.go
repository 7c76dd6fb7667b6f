package backend

import (
	"context"
	"errors"
	"fmt"
)

// Buffer is a device storage buffer. Buffers come from Upload (fresh, with
// contents), Alloc (from a pool keyed by exact size; contents undefined),
// AllocZeroed (fresh, zero-filled) and Persist (a view into the persistent
// region). Release gives a buffer back: pooled buffers return to the pool,
// others are freed once the device no longer needs them.
type Buffer struct {
	dev      *Device
	impl     BufferImpl
	size     int64  // bytes requested
	pooled   bool   // returns to the pool on Release
	gen      uint64 // generation of the last encoder that recorded a use
	released bool
	mapped   []byte // host view (AllocMapped), or nil
}

// pooledBuf is a free buffer in the pool, with the generation of the last
// encoder that recorded a use of it.
type pooledBuf struct {
	impl BufferImpl
	gen  uint64
}

// View is a byte range of a buffer: the unit of binding, copying and
// reading back.
type View struct {
	Buf       *Buffer
	Off, Size int64
}

// Size is the buffer's size in bytes, as requested.
func (b *Buffer) Size() int64 { return b.size }

// View returns a view of the whole buffer.
func (b *Buffer) View() View { return View{Buf: b, Size: b.size} }

// Slice returns the view [off, off+size) of the buffer; it is checked when
// used.
func (b *Buffer) Slice(off, size int64) View { return View{Buf: b, Off: off, Size: size} }

func (v View) String() string {
	return fmt.Sprintf("[%d, %d) of a %d-byte buffer", v.Off, v.Off+v.Size, v.Buf.size)
}

func roundUp(n, to int64) int64 { return (n + to - 1) / to * to }

// Upload creates a fresh buffer holding data. It never takes a buffer from
// the pool and the buffer never returns to it: a write into a recycled
// buffer would be ordered ahead of recorded work that still reads the old
// contents.
func (d *Device) Upload(data []byte) (*Buffer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	b, err := d.newBuffer(int64(len(data)), false)
	if err != nil {
		return nil, err
	}
	if err := d.writeLocked(b, 0, data); err != nil {
		d.releaseLocked(b)
		return nil, err
	}
	return b, nil
}

// Alloc returns a buffer of size bytes from the pool (a released pooled
// buffer of exactly this size) or a new one. Its contents are undefined:
// kernels must write what they read. Release returns it to the pool.
func (d *Device) Alloc(size int64) (*Buffer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	if free := d.pool[size]; len(free) > 0 {
		f := free[len(free)-1]
		d.pool[size] = free[:len(free)-1]
		d.stats.PoolHits++
		// The recycled buffer keeps its generation: a host write into it
		// flushes work recorded while it had its previous owner.
		b := &Buffer{dev: d, impl: f.impl, size: size, pooled: true, gen: f.gen}
		d.live[b] = struct{}{}
		return b, nil
	}
	d.stats.PoolMisses++
	return d.newBuffer(size, true)
}

// AllocZeroed returns a new zero-filled buffer of size bytes. It never
// comes from the pool and never returns to it, so the zeroes are
// guaranteed: for kernels that write only part of their output.
func (d *Device) AllocZeroed(size int64) (*Buffer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	return d.newBuffer(size, false)
}

func (d *Device) newBuffer(size int64, pooled bool) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("backend: buffer size %d must be positive", size)
	}
	alloc := roundUp(size, 16)
	if max := d.info.Limits.MaxBufferSize; max > 0 && alloc > max {
		return nil, fmt.Errorf("backend: buffer size %d exceeds the device's maximum %d", size, max)
	}
	impl, err := d.impl.NewBuffer(alloc)
	if err != nil {
		return nil, fmt.Errorf("backend: new buffer of %d bytes: %w", size, err)
	}
	b := &Buffer{dev: d, impl: impl, size: size, pooled: pooled}
	d.live[b] = struct{}{}
	return b, nil
}

// Write copies data into the buffer at byte offset off (a multiple of 4).
// Work recorded earlier that uses the buffer is submitted first, so the
// write lands after it, as program order says.
func (b *Buffer) Write(off int64, data []byte) error {
	d := b.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if b.released {
		return errors.New("backend: write to a released buffer")
	}
	return d.writeLocked(b, off, data)
}

func (d *Device) writeLocked(b *Buffer, off int64, data []byte) error {
	if off < 0 || off%4 != 0 || off+int64(len(data)) > b.size {
		return fmt.Errorf("backend: write of %d bytes at offset %d: outside the %d-byte buffer or offset not a multiple of 4", len(data), off, b.size)
	}
	if len(data) == 0 {
		return nil
	}
	if d.enc != nil && b.gen == d.encGen && d.encUsed {
		if err := d.submitLocked(context.Background()); err != nil {
			return err
		}
	}
	if len(data)%4 != 0 {
		// Only a write reaching the end of the buffer may have a ragged
		// length: the pad bytes land in the allocation's rounding slack.
		if off+int64(len(data)) != b.size {
			return fmt.Errorf("backend: write of %d bytes at offset %d: length must be a multiple of 4 unless the write reaches the end of the buffer", len(data), off)
		}
		padded := make([]byte, roundUp(int64(len(data)), 4))
		copy(padded, data)
		data = padded
	}
	if err := d.impl.WriteBuffer(b.impl, off, data); err != nil {
		return fmt.Errorf("backend: write buffer: %w", err)
	}
	d.stats.BytesUp += uint64(len(data))
	d.stats.Uploads++
	return nil
}

// Release gives the buffer back: a pooled buffer returns to the pool (a
// later Alloc of the same size may record work on it after the work already
// recorded, which is safe), any other buffer is freed once recorded work no
// longer needs it. Releasing twice is a no-op.
func (b *Buffer) Release() {
	d := b.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || b.released {
		return
	}
	d.releaseLocked(b)
}

func (d *Device) releaseLocked(b *Buffer) {
	b.released = true
	b.mapped = nil
	delete(d.live, b)
	impl := b.impl
	b.impl = nil
	switch {
	case b.pooled:
		d.pool[b.size] = append(d.pool[b.size], pooledBuf{impl, b.gen})
	case d.enc != nil && b.gen == d.encGen:
		d.deferred = append(d.deferred, impl)
	default:
		impl.Release()
	}
}

// TrimPool frees every buffer waiting in the pool.
func (d *Device) TrimPool() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for size, bs := range d.pool {
		for _, b := range bs {
			if d.enc != nil && b.gen == d.encGen {
				d.deferred = append(d.deferred, b.impl)
			} else {
				b.impl.Release()
			}
		}
		delete(d.pool, size)
	}
}

// PersistChunk is the size of one chunk of the persistent region (a larger
// upload gets a chunk of its own).
const PersistChunk = 64 << 20

// persistent is the bump-allocated region for long-lived data (weights).
type persistent struct {
	chunks []*Buffer
	used   int64 // bytes used in the last chunk
	total  int64 // bytes handed out
}

// Persist uploads data once into the persistent region and returns its
// view, aligned for binding. The region is separate from the pool and from
// Alloc'd buffers: nothing recycles it until ClearPersistent. Use it for
// data that many dispatches read over a long time (a model's weights).
func (d *Device) Persist(data []byte) (View, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return View{}, ErrClosed
	}
	n := int64(len(data))
	if n == 0 {
		return View{}, errors.New("backend: Persist of no bytes")
	}
	align := d.info.Limits.MinStorageBufferOffsetAlignment
	if align < 16 {
		align = 256
	}
	p := &d.pers
	off := roundUp(p.used, align)
	if len(p.chunks) == 0 || off+n > p.chunks[len(p.chunks)-1].size {
		size := int64(PersistChunk)
		if max := d.info.Limits.MaxStorageBufferBindingSize; max > 0 && size > max {
			size = max
		}
		if n > size {
			size = n
		}
		b, err := d.newBuffer(size, false)
		if err != nil {
			return View{}, err
		}
		p.chunks = append(p.chunks, b)
		off = 0
	}
	c := p.chunks[len(p.chunks)-1]
	if err := d.writeLocked(c, off, data); err != nil {
		return View{}, err
	}
	p.total += n
	p.used = off + n
	return View{Buf: c, Off: off, Size: n}, nil
}

// PersistentBytes returns the bytes in use in the persistent region.
func (d *Device) PersistentBytes() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pers.total
}

// ClearPersistent frees the persistent region; views it returned become
// invalid.
func (d *Device) ClearPersistent() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for _, c := range d.pers.chunks {
		d.releaseLocked(c)
	}
	d.pers = persistent{}
}
