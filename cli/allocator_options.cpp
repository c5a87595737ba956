// allocator_options.cpp: how the mirac binary asks jemalloc to manage its memory. Linked
// only with jemalloc (CMakeLists.txt, MIRAC_JEMALLOC); MALLOC_CONF in the environment still
// overrides it.
//
// Transparent huge pages for the heap: `mirac analyze` at ten times MIRA builds and frees
// some 400 MiB of rows and tables, and with 4 KiB pages the kernel took a quarter of a
// million page faults to hand them out again after each purge, twelve times as many as
// at 1x and a sixth of the command's time on a virtual machine. With 2 MiB pages there
// are about a tenth as many, for some 5% more peak memory (docs/performance.md). The
// kernel's default THP mode ("madvise") grants them to a heap that asks.
extern "C" {
// The name jemalloc reads at start-up (its documented `malloc_conf` global).
// NOLINTNEXTLINE: a C interface, and the only way to configure the allocator from the binary
const char* malloc_conf = "thp:always";
}
