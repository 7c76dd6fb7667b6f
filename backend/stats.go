package backend

import "fmt"

// Stats are a device's cumulative counters. Take a snapshot before and
// after a region and subtract with Since.
type Stats struct {
	Dispatches uint64 // dispatches recorded
	Copies     uint64 // device-to-device copies recorded
	Submits    uint64 // command submissions (scopes, flushes, readbacks, timing)
	Compiles   uint64 // pipelines built (pipeline-cache misses)
	CacheHits  uint64 // Load calls answered from the pipeline cache
	Uploads    uint64 // host-to-device writes
	BytesUp    uint64 // bytes written host to device
	Readbacks  uint64 // Read/ReadMany calls (each one submit and one wait)
	BytesDown  uint64 // bytes read device to host
	PoolHits   uint64 // Alloc calls served from the pool
	PoolMisses uint64 // Alloc calls that created a buffer
	Replays    uint64 // Graph.Replay calls that submitted
}

// Since returns the counts accumulated between prev and s.
func (s Stats) Since(prev Stats) Stats {
	return Stats{
		Dispatches: s.Dispatches - prev.Dispatches,
		Copies:     s.Copies - prev.Copies,
		Submits:    s.Submits - prev.Submits,
		Compiles:   s.Compiles - prev.Compiles,
		CacheHits:  s.CacheHits - prev.CacheHits,
		Uploads:    s.Uploads - prev.Uploads,
		BytesUp:    s.BytesUp - prev.BytesUp,
		Readbacks:  s.Readbacks - prev.Readbacks,
		BytesDown:  s.BytesDown - prev.BytesDown,
		PoolHits:   s.PoolHits - prev.PoolHits,
		PoolMisses: s.PoolMisses - prev.PoolMisses,
		Replays:    s.Replays - prev.Replays,
	}
}

func (s Stats) String() string {
	return fmt.Sprintf("dispatches=%d copies=%d submits=%d compiles=%d cache_hits=%d uploads=%d bytes_up=%d readbacks=%d bytes_down=%d pool_hits=%d pool_misses=%d replays=%d",
		s.Dispatches, s.Copies, s.Submits, s.Compiles, s.CacheHits, s.Uploads, s.BytesUp, s.Readbacks, s.BytesDown, s.PoolHits, s.PoolMisses, s.Replays)
}
