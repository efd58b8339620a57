import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local on loopback only. Its own main (ServerRunner) builds Jetty's Server(port), which
 * listens on every interface, and it has no option for the host: this builds the same server from
 * the same arguments, binds its connectors to 127.0.0.1 before starting it, and never configures
 * its telemetry. Run by lib/local/dynamodb-local.ts in Java's source-file mode, the jar and its
 * libraries on the class path.
 */
public class DynamoLocalLoopback {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector c : server.getConnectors()) {
      if (!(c instanceof ServerConnector)) throw new IllegalStateException("unexpected connector " + c);
      ((ServerConnector) c).setHost("127.0.0.1");
    }
    proxy.start();
  }
}
