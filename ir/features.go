package ir

// Optional features: f16 and subgroups must be enabled by an `enable`
// directive; Check records, per kernel, which ones the kernel uses
// (Kernel.Features) and where each is first used (Kernel.FeatPos).

// featureOrder is the order in which RequireFeatures reports missing features.
var featureOrder = [...]Feature{FeatureF16, FeatureSubgroups, FeatureCoopMat, FeatureDot4Packed, FeatureBF16, FeatureInt8, FeatureCoopMat2}

// useFeature records that the current kernel uses f at pos (what names the
// use in messages) and reports it, once per kernel or constant, when not
// enabled.
func (c *checker) useFeature(f Feature, pos Pos, what string) {
	if fn := c.fn; fn != nil {
		if fn.FeatPos == nil {
			fn.FeatPos = map[Feature]Pos{}
		}
		if prev, ok := fn.FeatPos[f]; fn.Features&f == 0 || (ok && posBefore(pos, prev)) {
			fn.FeatPos[f] = pos
		}
		fn.Features |= f
	}
	if k := c.k; k != nil {
		if k.FeatPos == nil {
			k.FeatPos = map[Feature]Pos{}
		}
		if prev, ok := k.FeatPos[f]; k.Features&f == 0 || (ok && posBefore(pos, prev)) {
			k.FeatPos[f] = pos
		}
		k.Features |= f
	}
	if c.enabled&f != 0 || c.featErr&f != 0 {
		return
	}
	c.featErr |= f // once per kernel or constant declaration
	c.errorf(pos, "%s used without `enable %s`", what, f.Name())
}

// posBefore reports whether a precedes b in the same file (positions
// without a line never do).
func posBefore(a, b Pos) bool {
	if !a.IsValid() || !b.IsValid() || a.File != b.File {
		return false
	}
	return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
}

// RequireFeatures reports an *UnsupportedError for the first feature that
// kernel k of a checked module uses and the target (named in messages)
// lacks, in the order f16, subgroups, cooperative matrices, packed dot products, bf16, int8,
// workgroup-scope cooperative matrices. It returns nil
// when the target has everything k uses.
func RequireFeatures(k *Kernel, target string, have Features) error {
	if k == nil {
		return nil
	}
	for _, f := range featureOrder {
		if k.Features&f != 0 && have&f == 0 {
			return &UnsupportedError{Pos: k.FeatPos[f], Target: target, Feature: f.Name()}
		}
	}
	return nil
}
