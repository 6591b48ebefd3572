/*
 * attach.h
 *		What the SQL functions of attach.c share with the other SQL functions.
 */
#ifndef DPK_ATTACH_H
#define DPK_ATTACH_H

#include "postgres.h"

/*
 * Detach relid, an attached table the caller owns: drop its WAL capture
 * (the slot goes at commit), its shards' capture, its triggers and every
 * stored row but its privacy ledger, which a later attach adds to.
 */
void		dpk_detach_table(Oid relid);

#endif
