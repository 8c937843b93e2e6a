// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the STag check matrix (every error class and the exact
 * Terminate layer/type/code it yields, for a placement sink and a Read
 * source), the local SGE check, the invalidation rules, STag composition,
 * and the memory iterators over user page arrays, fast-registration page
 * lists of several page sizes, and DMA-MR kernel addresses.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>

#include <kiw/ddp.h>
#include <kiw/rdmap.h>

#include "kiw_mem.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static struct ib_pd kiw_test_pd_a, kiw_test_pd_b;

#define T_IDX 0x9a5c31
#define T_KEY 0x5a
#define T_STAG ((T_IDX << 8) | T_KEY)
#define T_IOVA 0x7f0000001000ull
#define T_LEN 0x3000ull
#define RW (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
	    IB_ACCESS_REMOTE_READ)

#define TERM_DDP(c) KIW_TERM(KIW_TERM_LAYER_DDP, KIW_DDP_ETYPE_TAGGED, c)
#define TERM_RDMAP(c) \
	KIW_TERM(KIW_TERM_LAYER_RDMAP, KIW_RDMAP_ETYPE_REMOTE_PROT, c)

enum kiw_test_region { REGION_NORMAL, REGION_NONE, REGION_INVALID,
		       REGION_READ_ONLY, REGION_WRITE_ONLY, REGION_ALL_OF_U64 };

struct kiw_stag_case {
	const char *name;
	enum kiw_test_region region;
	u32 stag;
	bool foreign_pd;
	u32 access;
	u64 to;
	u32 len;
	kiw_term_t sink;	/* RDMA Write / Read Response placement */
	kiw_term_t source;	/* RDMA Read Request source */
};

#define W IB_ACCESS_REMOTE_WRITE
#define R IB_ACCESS_REMOTE_READ

static const struct kiw_stag_case kiw_stag_cases[] = {
	{ "inside", REGION_NORMAL, T_STAG, false, W, T_IOVA + 10, 100,
	  KIW_TERM_NONE, KIW_TERM_NONE },
	{ "whole_region", REGION_NORMAL, T_STAG, false, R, T_IOVA, T_LEN,
	  KIW_TERM_NONE, KIW_TERM_NONE },
	{ "ends_at_last_octet", REGION_NORMAL, T_STAG, false, W,
	  T_IOVA + T_LEN - 16, 16, KIW_TERM_NONE, KIW_TERM_NONE },
	{ "one_past_the_end", REGION_NORMAL, T_STAG, false, W,
	  T_IOVA + T_LEN - 15, 16,
	  TERM_DDP(KIW_DDP_ECODE_T_BASE_BOUNDS),
	  TERM_RDMAP(KIW_RDMAP_ECODE_BASE_BOUNDS) },
	{ "starts_after_the_end", REGION_NORMAL, T_STAG, false, W,
	  T_IOVA + T_LEN, 1,
	  TERM_DDP(KIW_DDP_ECODE_T_BASE_BOUNDS),
	  TERM_RDMAP(KIW_RDMAP_ECODE_BASE_BOUNDS) },
	{ "one_below_base", REGION_NORMAL, T_STAG, false, W, T_IOVA - 1, 2,
	  TERM_DDP(KIW_DDP_ECODE_T_BASE_BOUNDS),
	  TERM_RDMAP(KIW_RDMAP_ECODE_BASE_BOUNDS) },
	{ "longer_than_region", REGION_NORMAL, T_STAG, false, R, T_IOVA,
	  T_LEN + 1,
	  TERM_DDP(KIW_DDP_ECODE_T_BASE_BOUNDS),
	  TERM_RDMAP(KIW_RDMAP_ECODE_BASE_BOUNDS) },
	{ "zero_length_unknown_stag", REGION_NONE, 0, true, W, ~0ull, 0,
	  KIW_TERM_NONE, KIW_TERM_NONE },
	{ "zero_length_out_of_bounds", REGION_READ_ONLY, T_STAG ^ 1, true, W,
	  0, 0, KIW_TERM_NONE, KIW_TERM_NONE },
	{ "unknown_stag", REGION_NONE, T_STAG, false, W, T_IOVA, 1,
	  TERM_DDP(KIW_DDP_ECODE_T_INVALID_STAG),
	  TERM_RDMAP(KIW_RDMAP_ECODE_INVALID_STAG) },
	{ "wrong_key", REGION_NORMAL, T_STAG ^ 0x01, false, W, T_IOVA, 1,
	  TERM_DDP(KIW_DDP_ECODE_T_INVALID_STAG),
	  TERM_RDMAP(KIW_RDMAP_ECODE_INVALID_STAG) },
	{ "invalidated", REGION_INVALID, T_STAG, false, W, T_IOVA, 1,
	  TERM_DDP(KIW_DDP_ECODE_T_INVALID_STAG),
	  TERM_RDMAP(KIW_RDMAP_ECODE_INVALID_STAG) },
	{ "foreign_pd", REGION_NORMAL, T_STAG, true, W, T_IOVA, 1,
	  TERM_DDP(KIW_DDP_ECODE_T_STAG_NOT_ASSOC),
	  TERM_RDMAP(KIW_RDMAP_ECODE_STAG_NOT_ASSOC) },
	/* Covers: DDP-SEC-10 */
	{ "write_to_read_only", REGION_READ_ONLY, T_STAG, false, W, T_IOVA, 1,
	  TERM_RDMAP(KIW_RDMAP_ECODE_ACCESS_RIGHTS),
	  TERM_RDMAP(KIW_RDMAP_ECODE_ACCESS_RIGHTS) },
	/* Covers: DDP-SEC-10 */
	{ "read_from_write_only", REGION_WRITE_ONLY, T_STAG, false, R, T_IOVA,
	  1, TERM_RDMAP(KIW_RDMAP_ECODE_ACCESS_RIGHTS),
	  TERM_RDMAP(KIW_RDMAP_ECODE_ACCESS_RIGHTS) },
	{ "to_wrap", REGION_ALL_OF_U64, T_STAG, false, W,
	  0xfffffffffffffff0ull, 32,
	  TERM_DDP(KIW_DDP_ECODE_T_TO_WRAP),
	  TERM_RDMAP(KIW_RDMAP_ECODE_TO_WRAP) },
	{ "to_plus_len_is_2_64", REGION_ALL_OF_U64, T_STAG, false, W,
	  0xfffffffffffffff0ull, 16,
	  TERM_DDP(KIW_DDP_ECODE_T_TO_WRAP),
	  TERM_RDMAP(KIW_RDMAP_ECODE_TO_WRAP) },
	{ "top_of_u64_no_wrap", REGION_ALL_OF_U64, T_STAG, false, W,
	  0xfffffffffffffff0ull, 15, KIW_TERM_NONE, KIW_TERM_NONE },
	{ "wrap_beats_bounds", REGION_NORMAL, T_STAG, false, W, ~0ull, 2,
	  TERM_DDP(KIW_DDP_ECODE_T_TO_WRAP),
	  TERM_RDMAP(KIW_RDMAP_ECODE_TO_WRAP) },
	{ "invalid_beats_foreign_pd", REGION_INVALID, T_STAG, true, W, T_IOVA,
	  1, TERM_DDP(KIW_DDP_ECODE_T_INVALID_STAG),
	  TERM_RDMAP(KIW_RDMAP_ECODE_INVALID_STAG) },
	{ "foreign_pd_beats_access", REGION_READ_ONLY, T_STAG, true, W,
	  T_IOVA, 1, TERM_DDP(KIW_DDP_ECODE_T_STAG_NOT_ASSOC),
	  TERM_RDMAP(KIW_RDMAP_ECODE_STAG_NOT_ASSOC) },
	{ "access_beats_bounds", REGION_READ_ONLY, T_STAG, false, W, 0, 1,
	  TERM_RDMAP(KIW_RDMAP_ECODE_ACCESS_RIGHTS),
	  TERM_RDMAP(KIW_RDMAP_ECODE_ACCESS_RIGHTS) },
};

static void kiw_stag_case_desc(const struct kiw_stag_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_stag, kiw_stag_cases, kiw_stag_case_desc);

/* A region of @kind as the STag check sees it. */
static const struct kiw_mr_map *kiw_test_region(enum kiw_test_region kind,
						struct kiw_mr_map *map)
{
	*map = (struct kiw_mr_map) {
		.kind = KIW_MR_USER,
		.valid = true,
		.stag = T_STAG,
		.access = RW,
		.pd = &kiw_test_pd_a,
		.iova = T_IOVA,
		.length = T_LEN,
	};
	switch (kind) {
	case REGION_NONE:
		return NULL;
	case REGION_INVALID:
		map->valid = false;
		break;
	case REGION_READ_ONLY:
		map->access = IB_ACCESS_REMOTE_READ;
		break;
	case REGION_WRITE_ONLY:
		map->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
		break;
	case REGION_ALL_OF_U64:
		map->kind = KIW_MR_DMA;
		map->iova = 0;
		map->length = U64_MAX;
		break;
	default:
		break;
	}
	return map;
}

/*
 * Each case's Terminate code, for a sink and a Read source.
 * Covers: DDP-ERR-14
 */
static void kiw_stag_check_test(struct kunit *test)
{
	const struct kiw_stag_case *c = test->param_value;
	const struct ib_pd *pd = c->foreign_pd ? &kiw_test_pd_b :
						 &kiw_test_pd_a;
	const struct kiw_mr_map *map;
	struct kiw_mr_map region;
	kiw_term_t sink, source;

	map = kiw_test_region(c->region, &region);
	sink = kiw_stag_check(map, c->stag, pd, c->access, c->to, c->len,
			      KIW_STAG_SINK);
	source = kiw_stag_check(map, c->stag, pd, c->access, c->to, c->len,
				KIW_STAG_SOURCE);
	KUNIT_EXPECT_EQ_MSG(test, sink, c->sink, "sink: got %05x", sink);
	KUNIT_EXPECT_EQ_MSG(test, source, c->source, "source: got %05x",
			    source);
	/* The local SGE check fails exactly where the remote one does. */
	KUNIT_EXPECT_EQ(test,
			kiw_sge_check(map, c->stag, pd, c->access, c->to,
				      c->len),
			c->sink ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS);
}

/* Wire values, spelled out once: RFC 5041 7.2 and RFC 5040 7 (CONFORMANCE). */
static void kiw_stag_term_wire_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_term_wire(TERM_DDP(0x00)), 0x1100);
	KUNIT_EXPECT_EQ(test, kiw_term_wire(TERM_DDP(0x03)), 0x1103);
	KUNIT_EXPECT_EQ(test,
			kiw_term_wire(TERM_RDMAP(KIW_RDMAP_ECODE_ACCESS_RIGHTS)),
			0x0102);
	KUNIT_EXPECT_EQ(test,
			kiw_term_wire(TERM_RDMAP(KIW_RDMAP_ECODE_TO_WRAP)),
			0x0104);
}

static void kiw_stag_compose_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiw_stag(0x123456, 0x78), 0x12345678u);
	KUNIT_EXPECT_EQ(test, kiw_stag_index(0x12345678), 0x123456u);
	KUNIT_EXPECT_EQ(test, kiw_stag_key(0x12345678), 0x78);
	KUNIT_EXPECT_EQ(test, kiw_stag(KIW_STAG_INDEX_MAX, 0xff), 0xffffffffu);
	KUNIT_EXPECT_EQ(test, kiw_stag_index(kiw_stag(KIW_STAG_INDEX_MAX, 0)),
			(u32)KIW_STAG_INDEX_MAX);
	KUNIT_EXPECT_EQ(test, kiw_stag_key(kiw_stag(1, 0)), 0);
	KUNIT_EXPECT_EQ(test, KIW_STAG_INDEX_MAX, 0xffffff);
}

static void kiw_sge_check_test(struct kunit *test)
{
	struct kiw_mr_map map;

	kiw_test_region(REGION_READ_ONLY, &map);
	/* Reading local memory needs no access flag; writing needs one. */
	KUNIT_EXPECT_EQ(test, kiw_sge_check(&map, T_STAG, &kiw_test_pd_a, 0,
					    T_IOVA, 8), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kiw_sge_check(&map, T_STAG, &kiw_test_pd_a,
					    IB_ACCESS_LOCAL_WRITE, T_IOVA, 8),
			IB_WC_LOC_PROT_ERR);
	kiw_test_region(REGION_NORMAL, &map);
	KUNIT_EXPECT_EQ(test, kiw_sge_check(&map, T_STAG, &kiw_test_pd_a,
					    IB_ACCESS_LOCAL_WRITE, T_IOVA, 8),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, kiw_sge_check(NULL, 0, &kiw_test_pd_a,
					    IB_ACCESS_LOCAL_WRITE, 0, 0),
			IB_WC_SUCCESS);
}

struct kiw_inval_case {
	const char *name;
	enum kiw_mr_kind kind;
	bool none, valid, foreign_pd, wrong_key;
	int expected;
};

static const struct kiw_inval_case kiw_inval_cases[] = {
	{ "fast_reg_same_pd", KIW_MR_FAST, false, true, false, false, 0 },
	{ "already_invalid", KIW_MR_FAST, false, false, false, false, 0 },
	{ "unknown_stag", KIW_MR_FAST, true, true, false, false, -ENOENT },
	{ "wrong_key", KIW_MR_FAST, false, true, false, true, -ENOENT },
	{ "foreign_pd", KIW_MR_FAST, false, true, true, false, -EACCES },
	{ "user_mr", KIW_MR_USER, false, true, false, false, -EACCES },
	{ "dma_mr", KIW_MR_DMA, false, true, false, false, -EACCES },
};

static void kiw_inval_case_desc(const struct kiw_inval_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_inval, kiw_inval_cases, kiw_inval_case_desc);

static void kiw_may_invalidate_test(struct kunit *test)
{
	const struct kiw_inval_case *c = test->param_value;
	struct kiw_mr_map map;

	kiw_test_region(REGION_NORMAL, &map);
	map.kind = c->kind;
	map.valid = c->valid;
	KUNIT_EXPECT_EQ(test,
			kiw_mr_may_invalidate(c->none ? NULL : &map,
					      c->wrong_key ? T_STAG ^ 0x80 :
							     T_STAG,
					      c->foreign_pd ? &kiw_test_pd_b :
							      &kiw_test_pd_a),
			c->expected);
}

/* Memory iterators. */

struct kiw_iter_case {
	const char *name;
	enum kiw_mr_kind kind;
	u8 page_shift;		/* KIW_MR_FAST */
	u32 offset;		/* of iova in the first page */
	u64 start;		/* octets from iova */
	u64 len;
	u32 max;
};

#define NPAGES 5

static const struct kiw_iter_case kiw_iter_cases[] = {
	{ "user_whole", KIW_MR_USER, 0, 0, 0, NPAGES * PAGE_SIZE, U32_MAX },
	{ "user_odd_offset", KIW_MR_USER, 0, 123, 0, 3 * PAGE_SIZE, U32_MAX },
	{ "user_middle_small_max", KIW_MR_USER, 0, 4000, 5000, 9000, 100 },
	{ "user_last_octet", KIW_MR_USER, 0, 1, NPAGES * PAGE_SIZE - 2, 1,
	  U32_MAX },
	{ "user_one_octet_chunks", KIW_MR_USER, 0, 7, 4090, 20, 1 },
	{ "fast_4k", KIW_MR_FAST, 12, 100, 0, 4 * 4096, U32_MAX },
	{ "fast_8k", KIW_MR_FAST, 13, 8000, 10, 4 * 8192 - 8010, U32_MAX },
	{ "fast_16k", KIW_MR_FAST, 14, 5000, 12345, 30000, 777 },
	{ "fast_64k", KIW_MR_FAST, 16, 0, 65530, 70000, U32_MAX },
	{ "dma_cross_pages", KIW_MR_DMA, 0, 0, 300, 3 * PAGE_SIZE, U32_MAX },
	{ "dma_small_max", KIW_MR_DMA, 0, 0, PAGE_SIZE - 5, 50, 7 },
};

static void kiw_iter_case_desc(const struct kiw_iter_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiw_iter, kiw_iter_cases, kiw_iter_case_desc);

static void kiw_test_free_pages(void *p)
{
	struct page *page = p;

	__free_pages(page, page_private(page));
}

/* @n blocks of @order pages each; their kernel addresses in @addrs. */
static void kiw_test_blocks(struct kunit *test, unsigned int n,
			    unsigned int order, u64 *addrs,
			    struct page **pages)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct page *page = alloc_pages(GFP_KERNEL, order);

		KUNIT_ASSERT_NOT_NULL(test, page);
		set_page_private(page, order);
		ret = kunit_add_action_or_reset(test, kiw_test_free_pages,
						page);
		KUNIT_ASSERT_EQ(test, ret, 0);
		addrs[i] = (uintptr_t)page_address(page);
		if (pages)
			pages[i] = page;
	}
}

/* The kernel address octet @pos (from iova) of the test region maps to. */
static u64 kiw_test_kva(const struct kiw_mr_map *map, const u64 *addrs,
			u64 base_kva, u64 pos)
{
	u64 at;

	if (map->kind == KIW_MR_DMA)
		return base_kva + pos;
	at = map->offset + pos;
	if (map->kind == KIW_MR_USER)
		return addrs[at >> PAGE_SHIFT] + (at & ~PAGE_MASK);
	return addrs[at >> map->page_shift] +
	       (at & ((1ull << map->page_shift) - 1));
}

static void kiw_mem_iter_test(struct kunit *test)
{
	const struct kiw_iter_case *c = test->param_value;
	unsigned int order = c->kind == KIW_MR_FAST ?
			     c->page_shift - PAGE_SHIFT : 0;
	struct page *pages[NPAGES];
	u64 addrs[NPAGES], pos = c->start, kva;
	struct kiw_mr_map map = {
		.kind = c->kind,
		.valid = true,
		.iova = 0x10000 + c->offset,
		.offset = c->offset,
		.page_shift = c->page_shift,
		.npages = NPAGES,
	};
	struct kiw_mem_chunk chunk;
	struct kiw_mem_iter it;
	unsigned int chunks = 0;

	if (c->kind == KIW_MR_FAST && c->page_shift < PAGE_SHIFT)
		kunit_skip(test, "page size below PAGE_SIZE");
	kiw_test_blocks(test, c->kind == KIW_MR_DMA ? 1 : NPAGES,
			c->kind == KIW_MR_DMA ? 2 : order, addrs, pages);
	if (c->kind == KIW_MR_USER)
		map.pages = pages;
	else
		map.addrs = addrs;
	if (c->kind == KIW_MR_DMA)
		map.iova = addrs[0];

	kiw_mem_iter_init(&it, &map, map.iova + c->start, c->len);
	while (kiw_mem_iter_next(&it, c->max, &chunk)) {
		kva = kiw_test_kva(&map, addrs, addrs[0], pos);
		KUNIT_ASSERT_GT(test, chunk.len, 0u);
		KUNIT_ASSERT_LE(test, chunk.len, c->max);
		KUNIT_ASSERT_LE(test, chunk.offset + chunk.len, PAGE_SIZE);
		KUNIT_ASSERT_EQ_MSG(test,
				    (u64)(uintptr_t)page_address(chunk.page) +
				    chunk.offset, kva,
				    "chunk %u at octet %llu", chunks, pos);
		/* The whole chunk is contiguous in the region. */
		KUNIT_ASSERT_EQ(test, kiw_test_kva(&map, addrs, addrs[0],
						   pos + chunk.len - 1),
				kva + chunk.len - 1);
		pos += chunk.len;
		chunks++;
	}
	KUNIT_EXPECT_EQ(test, pos, c->start + c->len);
	KUNIT_EXPECT_EQ(test, kiw_mem_iter_left(&it), 0ull);
}

/* A region whose page array is shorter than its length stops the walk. */
static void kiw_mem_iter_short_array_test(struct kunit *test)
{
	struct page *pages[2];
	u64 addrs[2], total = 0;
	struct kiw_mr_map map = {
		.kind = KIW_MR_USER,
		.valid = true,
		.iova = 0,
		.length = 4 * PAGE_SIZE,
		.npages = 2,
		.pages = pages,
	};
	struct kiw_mem_chunk chunk;
	struct kiw_mem_iter it;

	kiw_test_blocks(test, 2, 0, addrs, pages);
	kiw_mem_iter_init(&it, &map, PAGE_SIZE, 3 * PAGE_SIZE);
	while (kiw_mem_iter_next(&it, U32_MAX, &chunk))
		total += chunk.len;
	KUNIT_EXPECT_EQ(test, total, (u64)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, kiw_mem_iter_left(&it), 2ull * PAGE_SIZE);
}

/* A DMA-MR address outside the direct map is never turned into a page. */
static void kiw_mem_iter_bad_kva_test(struct kunit *test)
{
	struct kiw_mr_map map = {
		.kind = KIW_MR_DMA,
		.valid = true,
		.iova = 0,
		.length = U64_MAX,
	};
	struct kiw_mem_chunk chunk;
	struct kiw_mem_iter it;

	kiw_mem_iter_init(&it, &map, 0x1000, 16);
	KUNIT_EXPECT_FALSE(test, kiw_mem_iter_next(&it, U32_MAX, &chunk));
	KUNIT_EXPECT_EQ(test, kiw_mem_iter_left(&it), 16ull);
}

static struct kunit_case kiw_mem_test_cases[] = {
	KUNIT_CASE_PARAM(kiw_stag_check_test, kiw_stag_gen_params),
	KUNIT_CASE(kiw_stag_term_wire_test),
	KUNIT_CASE(kiw_stag_compose_test),
	KUNIT_CASE(kiw_sge_check_test),
	KUNIT_CASE_PARAM(kiw_may_invalidate_test, kiw_inval_gen_params),
	KUNIT_CASE_PARAM(kiw_mem_iter_test, kiw_iter_gen_params),
	KUNIT_CASE(kiw_mem_iter_short_array_test),
	KUNIT_CASE(kiw_mem_iter_bad_kva_test),
	{}
};

static struct kunit_suite kiw_mem_test_suite = {
	.name = "kiw_mem",
	.test_cases = kiw_mem_test_cases,
};

kunit_test_suite(kiw_mem_test_suite);
