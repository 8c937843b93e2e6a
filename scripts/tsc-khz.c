// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tsc-khz: print the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW. Under TCG the guest's TSC is the host's, so
 * scripts/vm.sh passes this to the guest kernel as tsc_early_khz=: the
 * guest's own calibration loops (PIT, HPET) give wild results when the host
 * is busy (180 MHz instead of 2445 MHz was seen: a guest clock 13 times too
 * fast, spurious timeouts, soft lockups and stalls).
 *
 * Two 100 ms measurements must agree within 0.1%; it fails otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double measure(void)
{
	struct timespec t0, t1, nap = { 0, 100 * 1000 * 1000 };
	uint64_t c0, c1;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	c0 = __rdtsc();
	nanosleep(&nap, NULL);
	clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
	c1 = __rdtsc();
	return (double)(c1 - c0) /
	       ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
}

int main(void)
{
	double a, b;
	int i;

	for (i = 0; i < 5; i++) {
		a = measure();
		b = measure();
		if (a > 0 && b > 0 && (a > b ? a - b : b - a) < a / 1000) {
			printf("%.0f\n", (a + b) / 2);
			return 0;
		}
	}
	fprintf(stderr, "tsc-khz: no stable measurement\n");
	return 1;
}
