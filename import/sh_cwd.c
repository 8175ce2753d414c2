/*
 * sh_cwd.c - the working directory a shell command leaves (shellparse.h):
 * cd, pushd and popd with OLDPWD and the directory stack, as bash's
 * builtins change them, for the paths the commands after them name.
 */
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "sh_int.h"

/* Forget where the command is: relative paths from here on name nothing
 * we can follow; OLDPWD and the stack are not known either. */
static void cwd_lose(struct ctx *x)
{
	free(x->cwd);
	x->cwd = NULL;
	x->cwd_lost = 1;
	free(x->old.dir);
	x->old.dir = NULL;
	x->old_known = 0;
	while (x->nstk)
		free(x->stk[--x->nstk].dir);
}

/* Change to d (owned; lost: a directory we cannot follow), the old one
 * becoming OLDPWD as bash's cd, pushd and popd do. */
static void cwd_go(struct ctx *x, struct wdir d)
{
	free(x->old.dir);
	x->old.dir = x->cwd;
	x->old.lost = x->cwd_lost;
	x->old_known = 1;
	x->cwd = d.dir;
	x->cwd_lost = d.lost;
}

/* Where a cd operand leads: lost when it expands or is relative to a
 * directory we do not know.  Returns 0, or -1 on ENOMEM. */
static int cwd_target(struct ctx *x, const struct word *w, struct wdir *d)
{
	d->dir = NULL;
	d->lost = 1;
	if ((w->fl & (W_DYN | W_GLOB)) ||
	    (w->v[0] != '/' && (x->cwd_lost || !x->cwd)))
		return 0;
	if (!(d->dir = kt_sh_path(x->cwd, w->v)))
		return -1;
	d->lost = 0;
	return 0;
}

static char *dup_or_null(const char *s, int *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = 1;
	return d;
}

/*
 * cd, pushd and popd (bash manual, "Bourne Shell Builtins" and "Directory
 * Stack Builtins"): `cd` alone goes home (not known: lost), `cd -` to
 * OLDPWD, `pushd DIR` pushes the current directory and goes to DIR,
 * `pushd` alone swaps with the top of the stack, `popd` goes to the top
 * and removes it.  Anything else (+N/-N, a stack entry pushed before this
 * command, a step that may or may not have run) loses the cwd.
 */
void sh_set_cwd(struct ctx *x, const struct scmd *c, size_t a, int succ)
{
	const char *b = kt_basename(c->w[a].v);
	const struct word *arg = NULL;
	struct wdir d = { NULL, 1 };
	size_t i, na = 0;
	int is_cd = !strcmp(b, "cd");

	if (succ == NO)
		return;
	for (i = a + 1; i < c->nw; i++) {
		const struct word *w = &c->w[i];

		/* cd -L/-P only choose how symlinks are followed */
		if (!na && is_cd && (sh_wis(w, "-L") || sh_wis(w, "-P") ||
				     sh_wis(w, "--")))
			continue;
		if (!na)
			arg = w;
		na++;
	}
	if (succ == UNK || na > 1)
		goto lose;
	if (arg && !is_cd && (arg->fl & W_DYN || arg->v[0] == '+' ||
			      arg->v[0] == '-'))
		goto lose;      /* pushd/popd +N -N -n */
	if (is_cd) {
		if (arg && sh_wis(arg, "-")) {
			if (!x->old_known)
				goto lose;
			d.lost = x->old.lost;
			d.dir = dup_or_null(x->old.dir, &x->oom);
		} else if (arg && cwd_target(x, arg, &d)) {
			x->oom = 1;
		}
		/* no operand: $HOME, which we do not know (d lost) */
		if (x->oom)
			return;
		cwd_go(x, d);
		return;
	}
	if (!strcmp(b, "pushd")) {
		struct wdir top = { NULL, 0 };

		if (!arg) {
			/* swap the two top entries */
			if (!x->nstk)
				goto lose;
			top = x->stk[--x->nstk];
		} else if (cwd_target(x, arg, &top)) {
			x->oom = 1;
			return;
		}
		if (sh_more((void **)&x->stk, &x->capstk, x->nstk,
			 sizeof(*x->stk))) {
			free(top.dir);
			x->oom = 1;
			return;
		}
		x->stk[x->nstk].dir = dup_or_null(x->cwd, &x->oom);
		x->stk[x->nstk++].lost = x->cwd_lost;
		if (x->oom) {
			free(top.dir);
			return;
		}
		cwd_go(x, top);
		return;
	}
	/* popd */
	if (arg || !x->nstk)
		goto lose;
	cwd_go(x, x->stk[--x->nstk]);
	return;
lose:
	cwd_lose(x);
}
