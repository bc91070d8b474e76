// SPDX-License-Identifier: GPL-2.0
/*
 * Reading what the module publishes as files: its sysfs directories (one
 * per filter, and the class directory that lists them) and its parameters,
 * one value per file.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbloomctl.h"

ssize_t read_value_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return n;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sorted_names(const char *path,
		 bool (*keep)(int dir_fd, const struct dirent *de),
		 char ***out, size_t *count)
{
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (!keep(dirfd(dir), de))
			continue;
		if (n == cap) {
			char **grown;

			cap = cap ? cap * 2 : 16;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown)
				break;
			names = grown;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(dir);
	if (n)
		qsort(names, n, sizeof(*names), compare_names);
	*out = names;
	*count = n;
	return 0;
}

void free_names(char **names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}
