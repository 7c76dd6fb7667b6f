//go:build linux && cgo

package vulkan

import (
	"fmt"
	"os"
	"sort"
)

// apiVersion packs a Vulkan version number (VK_MAKE_API_VERSION, variant 0).
func apiVersion(major, minor, patch uint32) uint32 { return major<<22 | minor<<12 | patch }

// versionString formats a packed Vulkan version.
func versionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>22&0x7f, v>>12&0x3ff, v&0xfff)
}

// instanceFns holds the instance-level entry points.
type instanceFns struct {
	destroyInstance           uintptr
	enumeratePhysicalDevices  uintptr
	getProperties2            uintptr
	getFeatures2              uintptr
	getQueueFamilyProperties  uintptr
	getMemoryProperties       uintptr
	enumerateDeviceExtensions uintptr
	getCoopMatPropertiesKHR   uintptr
	getCoopMatPropertiesNV    uintptr
	// vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV
	getCoopMatFlexiblePropertiesNV uintptr
	createDevice                   uintptr
	getDeviceProcAddr              uintptr
}

// instance is a VkInstance with its physical devices described.
type instance struct {
	gipa    uintptr // vkGetInstanceProcAddr
	handle  uintptr
	version uint32 // instance API version requested
	fn      instanceFns
	phys    []*physical
}

// newInstance loads the loader, creates an instance for Vulkan 1.3 (or the
// loader's version when lower, at least 1.1) and describes every physical
// device.
func newInstance() (*instance, error) {
	gipa, err := openLoader()
	if err != nil {
		return nil, err
	}
	in := &instance{gipa: gipa}
	var a arena
	defer a.free()
	version := apiVersion(1, 0, 0)
	if f := procAddr(gipa, 0, "vkEnumerateInstanceVersion"); f != 0 {
		pv := newIn[uint32](&a)
		if err := check("vkEnumerateInstanceVersion", call(f, addr(pv))); err != nil {
			return nil, err
		}
		version = *pv
	}
	if version < apiVersion(1, 1, 0) {
		return nil, fmt.Errorf("vulkan: the loader offers Vulkan %s; kc needs 1.1 or later", versionString(version))
	}
	in.version = min(version, apiVersion(1, 3, 0))

	app := newIn[vkApplicationInfo](&a)
	app.sType = stApplicationInfo
	app.pApplicationName = a.cstr("kc")
	app.pEngineName = a.cstr("kc")
	app.apiVersion = in.version
	ci := newIn[vkInstanceCreateInfo](&a)
	ci.sType = stInstanceCreateInfo
	ci.pApplicationInfo = addr(app)
	if layers := validationLayers(&a, gipa); len(layers) > 0 {
		ci.enabledLayerCount = uint32(len(layers))
		ci.ppEnabledLayerNames = a.cstrs(layers)
	}
	create := procAddr(gipa, 0, "vkCreateInstance")
	if create == 0 {
		return nil, fmt.Errorf("vulkan: %s has no vkCreateInstance", loaderName)
	}
	ph := newIn[uintptr](&a)
	if r := call(create, addr(ci), 0, addr(ph)); r != 0 {
		err := check("vkCreateInstance", r)
		if r == -9 { // VK_ERROR_INCOMPATIBLE_DRIVER
			err = fmt.Errorf("%w: the loader found no Vulkan driver (ICD); install one (mesa-vulkan-drivers for lavapipe) or set VK_DRIVER_FILES", err)
		}
		return nil, err
	}
	in.handle = *ph
	if err := in.loadFns(); err != nil {
		in.close()
		return nil, err
	}
	if err := in.enumerate(); err != nil {
		in.close()
		return nil, err
	}
	return in, nil
}

// loadFns resolves the instance-level entry points. The cooperative-matrix
// queries are optional (nil when the loader does not know them).
func (in *instance) loadFns() error {
	required := []struct {
		name string
		dst  *uintptr
	}{
		{"vkDestroyInstance", &in.fn.destroyInstance},
		{"vkEnumeratePhysicalDevices", &in.fn.enumeratePhysicalDevices},
		{"vkGetPhysicalDeviceProperties2", &in.fn.getProperties2},
		{"vkGetPhysicalDeviceFeatures2", &in.fn.getFeatures2},
		{"vkGetPhysicalDeviceQueueFamilyProperties", &in.fn.getQueueFamilyProperties},
		{"vkGetPhysicalDeviceMemoryProperties", &in.fn.getMemoryProperties},
		{"vkEnumerateDeviceExtensionProperties", &in.fn.enumerateDeviceExtensions},
		{"vkCreateDevice", &in.fn.createDevice},
		{"vkGetDeviceProcAddr", &in.fn.getDeviceProcAddr},
	}
	for _, r := range required {
		*r.dst = procAddr(in.gipa, in.handle, r.name)
		if *r.dst == 0 {
			return fmt.Errorf("vulkan: the loader has no %s", r.name)
		}
	}
	in.fn.getCoopMatPropertiesKHR = procAddr(in.gipa, in.handle, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR")
	in.fn.getCoopMatPropertiesNV = procAddr(in.gipa, in.handle, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV")
	in.fn.getCoopMatFlexiblePropertiesNV = procAddr(in.gipa, in.handle, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV")
	return nil
}

// enumerate lists and describes the physical devices.
func (in *instance) enumerate() error {
	var a arena
	defer a.free()
	n := newIn[uint32](&a)
	if err := check("vkEnumeratePhysicalDevices", call(in.fn.enumeratePhysicalDevices, in.handle, addr(n), 0)); err != nil {
		return err
	}
	if *n == 0 {
		return nil
	}
	hs := sliceIn[uintptr](&a, int(*n))
	r := call(in.fn.enumeratePhysicalDevices, in.handle, addr(n), saddr(hs))
	if r != 0 && r != 5 { // VK_INCOMPLETE: a device vanished between calls
		return check("vkEnumeratePhysicalDevices", r)
	}
	for i := 0; i < int(*n); i++ {
		p, err := in.describe(hs[i])
		if err != nil {
			return err
		}
		in.phys = append(in.phys, p)
	}
	return nil
}

// close destroys the instance.
func (in *instance) close() {
	if in.handle != 0 && in.fn.destroyInstance != 0 {
		call(in.fn.destroyInstance, in.handle, 0)
	}
	in.handle = 0
}

// deviceExtensions lists a physical device's extensions, sorted.
func (in *instance) deviceExtensions(pd uintptr) ([]string, error) {
	var a arena
	defer a.free()
	n := newIn[uint32](&a)
	if err := check("vkEnumerateDeviceExtensionProperties", call(in.fn.enumerateDeviceExtensions, pd, 0, addr(n), 0)); err != nil {
		return nil, err
	}
	props := sliceIn[vkExtensionProperties](&a, int(*n))
	if len(props) == 0 {
		return nil, nil
	}
	r := call(in.fn.enumerateDeviceExtensions, pd, 0, addr(n), saddr(props))
	if r != 0 && r != 5 {
		return nil, check("vkEnumerateDeviceExtensionProperties", r)
	}
	out := make([]string, 0, *n)
	for i := 0; i < int(*n); i++ {
		out = append(out, cString(props[i].extensionName[:]))
	}
	sort.Strings(out)
	return out, nil
}

// envValidation enables the Khronos validation layer when set to 1 and the
// layer is installed (it reports through its default output).
const envValidation = "KC_VULKAN_VALIDATION"

// validationLayer is the Khronos validation layer's name.
const validationLayer = "VK_LAYER_KHRONOS_validation"

// vkLayerProperties mirrors VkLayerProperties.
type vkLayerProperties struct {
	layerName             [256]byte
	specVersion           uint32
	implementationVersion uint32
	description           [256]byte
}

// validationLayers returns the layers to enable: the validation layer when
// KC_VULKAN_VALIDATION=1 and it is present, else none.
func validationLayers(a *arena, gipa uintptr) []string {
	if os.Getenv(envValidation) != "1" {
		return nil
	}
	f := procAddr(gipa, 0, "vkEnumerateInstanceLayerProperties")
	if f == 0 {
		return nil
	}
	n := newIn[uint32](a)
	if call(f, addr(n), 0) != 0 || *n == 0 {
		fmt.Fprintf(os.Stderr, "vulkan: %s=1 but no layers are installed\n", envValidation)
		return nil
	}
	props := sliceIn[vkLayerProperties](a, int(*n))
	if r := call(f, addr(n), saddr(props)); r != 0 && r != 5 {
		return nil
	}
	for _, p := range props[:min(int(*n), len(props))] {
		if cString(p.layerName[:]) == validationLayer {
			return []string{validationLayer}
		}
	}
	fmt.Fprintf(os.Stderr, "vulkan: %s=1 but %s is not installed\n", envValidation, validationLayer)
	return nil
}
