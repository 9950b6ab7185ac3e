import java.io.IOException;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local, bound to the loopback interface only (its CLI has no bind option), and
 * ending with the process that started it.
 */
public final class LoopbackDynamoDBLocal {
  public static void main(String[] args) throws Exception {
    exitWhenInputEnds();
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    if (proxy == null) System.exit(1);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
  }

  /**
   * The parent holds the write end of this process's stdin and never writes to it. The kernel
   * closes it when the parent ends, however it ends (SIGKILL included), so end of input means
   * nobody is left to stop this server or to use it: exit, running the shutdown hooks that
   * close the database files.
   */
  private static void exitWhenInputEnds() {
    Thread watchdog =
        new Thread(
            () -> {
              try {
                byte[] buffer = new byte[256];
                while (System.in.read(buffer) != -1) {}
              } catch (IOException e) {
                // An unreadable stdin is a parent gone too.
              }
              System.exit(0);
            },
            "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
