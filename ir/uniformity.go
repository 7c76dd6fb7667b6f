package ir

func (c *checker) uniformity(k *Kernel) {}
