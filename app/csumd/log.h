// csumd's own rte_log type: --log-level=csumd:debug (an EAL option) sets it.
#pragma once

#include <rte_log.h>

extern int csumd_logtype;

#define CSUMD_LOG(level, fmt, ...) \
    rte_log(RTE_LOG_##level, csumd_logtype, "csumd: " fmt "\n" __VA_OPT__(, ) __VA_ARGS__)
