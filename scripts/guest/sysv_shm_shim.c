// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SysV shared memory for a kernel without CONFIG_SYSVIPC, for fio only.
 *
 * fio keeps its job table in a SysV segment (shmget(IPC_PRIVATE), shmat,
 * shmctl(IPC_RMID), shmdt), and stops when shmget() fails with ENOSYS, as
 * it does on kiw's debug kernel. This LD_PRELOAD shim backs private
 * segments with a memfd mapped MAP_SHARED, which fio's forked jobs share
 * the same way. Built and preloaded by storage_lib.sh only when
 * /proc/sysvipc is missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#define MAX_SEG 64

static struct { int fd; size_t size; void *addr; } seg[MAX_SEG];

int shmget(key_t key, size_t size, int flags)
{
	int fd, i;

	(void)flags;
	if (key != IPC_PRIVATE) {
		errno = ENOSYS;
		return -1;
	}
	for (i = 0; i < MAX_SEG && seg[i].size; i++)
		;
	if (i == MAX_SEG) {
		errno = ENOSPC;
		return -1;
	}
	fd = memfd_create("sysv-shm", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, size)) {
		close(fd);
		return -1;
	}
	seg[i].fd = fd;
	seg[i].size = size;
	return i;
}

void *shmat(int id, const void *addr, int flags)
{
	void *p;

	(void)addr;
	(void)flags;
	if (id < 0 || id >= MAX_SEG || !seg[id].size) {
		errno = EINVAL;
		return (void *)-1;
	}
	p = mmap(NULL, seg[id].size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 seg[id].fd, 0);
	if (p == MAP_FAILED)
		return (void *)-1;
	seg[id].addr = p;
	return p;
}

int shmdt(const void *addr)
{
	int i;

	for (i = 0; i < MAX_SEG; i++)
		if (seg[i].size && seg[i].addr == addr)
			return munmap(seg[i].addr, seg[i].size);
	errno = EINVAL;
	return -1;
}

/* IPC_RMID: the mapping keeps the memfd alive; the descriptor can go. */
int shmctl(int id, int cmd, struct shmid_ds *buf)
{
	(void)buf;
	if (id < 0 || id >= MAX_SEG || !seg[id].size || cmd != IPC_RMID) {
		errno = EINVAL;
		return -1;
	}
	if (seg[id].fd >= 0)
		close(seg[id].fd);
	seg[id].fd = -1;
	return 0;
}
