#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_connection_info are C-variadic, which Swift cannot call;
   these two fixed-argument wrappers are the only C in the project. */
static inline struct MHD_Daemon *
market09_start_daemon (unsigned int flags, MHD_AccessHandlerCallback handler, void *handler_cls,
                       struct MHD_OptionItem *options)
{
  return MHD_start_daemon (flags, 0, NULL, NULL, handler, handler_cls,
                           MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

static inline const struct sockaddr *
market09_client_address (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return info ? info->client_addr : NULL;
}

/* The connection's socket, for the request-deadline watchdog (MHD_get_connection_info is
   C-variadic). */
static inline int
market09_connection_fd (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info ? info->connect_fd : -1;
}

/* The per-connection pointer set in the "connection started" notification. */
static inline void *
market09_socket_context (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info ? info->socket_context : NULL;
}
