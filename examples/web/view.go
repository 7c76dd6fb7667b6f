package main

import "math"

// view is what the page draws: the picture's size in pixels, its centre,
// the complex-plane units per pixel and the iteration limit. The page
// publishes it (data-view on <body>) so a test can recompute the picture.
type view struct {
	Width   uint32  `json:"width"`
	Height  uint32  `json:"height"`
	CX      float32 `json:"cx"`
	CY      float32 `json:"cy"`
	Scale   float32 `json:"scale"`
	MaxIter uint32  `json:"maxIter"`
}

// home is the first view: the whole set.
var home = view{Width: 480, Height: 320, CX: -0.6, CY: 0, Scale: 3.2 / 480, MaxIter: 256}

// groups is the kernel's grid: 16x16 workgroups over the picture.
func (v view) groups() [3]uint32 {
	return [3]uint32{(v.Width + 15) / 16, (v.Height + 15) / 16, 1}
}

// zoom re-centres on pixel (x, y) and scales by f, raising the iteration
// limit as the scale shrinks so the boundary keeps its detail.
func (v view) zoom(x, y int, f float64) view {
	v.CX += (float32(x) - float32(v.Width)*0.5) * v.Scale
	v.CY -= (float32(y) - float32(v.Height)*0.5) * v.Scale
	v.Scale = float32(float64(v.Scale) * f)
	depth := math.Log2(float64(home.Scale) / float64(v.Scale))
	v.MaxIter = uint32(min(4096, max(256, 256+96*depth)))
	return v
}
