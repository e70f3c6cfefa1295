/* nb's version, in `nb -version` and every result record. */
#ifndef NB_VERSION_H
#define NB_VERSION_H

#define NB_VERSION "0.2.0"

#endif
