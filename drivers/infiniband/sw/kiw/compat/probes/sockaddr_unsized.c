// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 6.19: kernel_bind() and kernel_connect() take struct sockaddr_unsized *. */
#include <linux/net.h>
#include <linux/socket.h>

int kiw_probe(struct socket *sock, struct sockaddr_storage *ss);
int kiw_probe(struct socket *sock, struct sockaddr_storage *ss)
{
	return kernel_bind(sock, (struct sockaddr_unsized *)ss, sizeof(*ss));
}
