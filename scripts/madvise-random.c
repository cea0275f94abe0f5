// An LD_PRELOAD shim for measuring, not part of the collector: before the program starts it
// gives the main executable's loadable segments MADV_RANDOM (no read-ahead on their page
// faults), or, with MADVISE_RANGES=0xSTART-0xEND,..., only those address ranges. What it
// showed is in docs/benchmarks.md ("Runtime settings we measured and did not adopt").
//
//   gcc -shared -fPIC -O2 -o .cache/madvise-random.so scripts/madvise-random.c
//   LD_PRELOAD=$PWD/.cache/madvise-random.so bin/otelcol-modelplane --config ...
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned long page;

static void advise(unsigned long start, unsigned long end) {
	start &= ~(page - 1);
	madvise((void *)start, end - start, MADV_RANDOM);
}

static int main_program(struct dl_phdr_info *info, size_t size, void *data) {
	if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0') {
		return 0; // a shared library; the main program has an empty name
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && ph->p_filesz > 0) {
			advise(info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_filesz);
		}
	}
	return 1;
}

__attribute__((constructor)) static void init(void) {
	page = (unsigned long)sysconf(_SC_PAGESIZE);
	const char *ranges = getenv("MADVISE_RANGES");
	if (ranges == NULL) {
		dl_iterate_phdr(main_program, NULL);
		return;
	}
	for (char *p = (char *)ranges; *p != '\0';) {
		unsigned long start = strtoul(p, &p, 0);
		if (*p++ != '-') return;
		unsigned long end = strtoul(p, &p, 0);
		advise(start, end);
		if (*p == ',') p++;
	}
}
