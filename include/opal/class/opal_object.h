/* Open MPI programs include the object system as "opal/class/opal_object.h"; goabt's header is
 * include/opal_object.h. This file only forwards to it. */
#include "../../opal_object.h"
