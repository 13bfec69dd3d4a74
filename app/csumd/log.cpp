#include "log.h"

RTE_LOG_REGISTER(csumd_logtype, csumd, INFO);
