/* The size a loam_malloc block was asked for (core/memory.c keeps it in the block's header): lets a
 * structure of blocks be copied whole, block by block (src/granular/state_io.c), without each owner
 * of an array having to say how long it is. 0 for NULL. */
#ifndef LOAM_CORE_BLOCK_BYTES_H
#define LOAM_CORE_BLOCK_BYTES_H

#include <stddef.h>

size_t loam_block_bytes(const void* ptr);

#endif
