// Query is internal/gateway's TestFlinkJDBCDriver client: it connects with
// Flink's JDBC driver to the URL in its first argument, runs each further
// argument as a statement and prints the rows with their Java classes, the
// ResultSetMetaData and errors' root causes.
import java.sql.*;

public class Query {
    public static void main(String[] args) throws Exception {
        try (Connection conn = DriverManager.getConnection(args[0])) {
            DatabaseMetaData dm = conn.getMetaData();
            System.out.println("product: " + dm.getDatabaseProductName() + " " + dm.getDatabaseProductVersion());
            try (Statement st = conn.createStatement()) {
                for (int i = 1; i < args.length; i++) {
                    System.out.println("> " + args[i]);
                    try {
                        if (st.execute(args[i])) {
                            try (ResultSet rs = st.getResultSet()) {
                                ResultSetMetaData md = rs.getMetaData();
                                StringBuilder h = new StringBuilder("columns:");
                                for (int c = 1; c <= md.getColumnCount(); c++) {
                                    h.append(' ').append(md.getColumnLabel(c)).append(' ').append(md.getColumnTypeName(c))
                                     .append('/').append(md.getColumnType(c)).append(md.isNullable(c) == ResultSetMetaData.columnNullable ? " NULL" : " NOT NULL").append(';');
                                }
                                System.out.println(h);
                                while (rs.next()) {
                                    StringBuilder r = new StringBuilder("row:");
                                    for (int c = 1; c <= md.getColumnCount(); c++) {
                                        Object o = rs.getObject(c);
                                        r.append(' ').append(o == null ? "NULL" : o.toString() + "(" + o.getClass().getSimpleName() + ")").append(';');
                                    }
                                    System.out.println(r);
                                }
                            }
                        } else {
                            System.out.println("update count: " + st.getUpdateCount());
                        }
                    } catch (Exception e) {
                        Throwable t = e;
                        while (t.getCause() != null) t = t.getCause();
                        String m = t.getMessage() == null ? "" : t.getMessage(); int k = m.lastIndexOf("Caused by: "); String root = k < 0 ? m : m.substring(k + 11); System.out.println("error: " + root.split("\n")[0]);
                    }
                }
            }
        }
    }
}
