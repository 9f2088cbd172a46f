# curves.svg and curves.png, written by attnzoo; rerun with `gnuplot curves.gp` in this folder.
$train << EOD
160256 0.7043038273152833 0.4986396765175719
320512 0.6971072602909975 0.49837135583067096
480768 0.6947506935999226 0.4989891174121406
641024 0.6941512186591998 0.5011731230031949
801280 0.6938692177303683 0.501116962859425
961536 0.6938221037816316 0.4989017571884984
1121792 0.6935837604819586 0.5014227236421726
1282048 0.6935898212402342 0.49888584621993128
1442304 0.6934550034876068 0.4999563198881789
1602560 0.693349415751787 0.500636481629393
1762816 0.6934312505248826 0.49992511980830675
1923072 0.6934203915536022 0.5006614416932907
2083328 0.6932848047096127 0.5016723242811502
2243584 0.693402825774381 0.498783196884984
2403840 0.6933467429571639 0.5001435203674122
2564096 0.6933283768594265 0.49976287939297128
2724352 0.6933314940109611 0.5000187200479234
2884608 0.6932448058392102 0.49997503993610228
EOD
$val << EOD
160256 0.6953399398803711 0.5
320512 0.6940832983016968 0.5
480768 0.6934964999198914 0.5
641024 0.6931524907112122 0.5
801280 0.6931741260528564 0.5
961536 0.6931496019363403 0.5
1121792 0.6936754945755005 0.5
1282048 0.6933330454826355 0.5
1442304 0.6937146864891052 0.5
1602560 0.6931509285926819 0.5
1762816 0.693515759563446 0.5
1923072 0.6931702576637268 0.5
2083328 0.6933830820083619 0.5
2243584 0.6931481108665466 0.5
2403840 0.6931678409576416 0.5
2564096 0.6937209041595459 0.5
2724352 0.693411776638031 0.5
2884608 0.6931956275939941 0.5
EOD

set terminal svg size 1100,450 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'curves.svg'
set multiplot layout 1,2 title "linear on pathfinder (runs/pf-lra-linear)"
set grid
set xlabel 'examples seen'
set logscale x
set format x '%.0s%c'
set autoscale xfix
set ylabel 'loss'
set key top right Right noreverse
plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)', $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'
set ylabel 'accuracy'
set yrange [0.45:0.8]
set key top left Left reverse
plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)', $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy', 0.67 with lines dt 2 lw 1.5 lc rgb '#444444' title "markers' kNN (67%)", 0.5 with lines dt 3 lw 1.5 lc rgb '#444444' title "chance"
set autoscale y
unset multiplot
unset output
set terminal pngcairo size 1100,450 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'curves.png'
set multiplot layout 1,2 title "linear on pathfinder (runs/pf-lra-linear)"
set grid
set xlabel 'examples seen'
set logscale x
set format x '%.0s%c'
set autoscale xfix
set ylabel 'loss'
set key top right Right noreverse
plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)', $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'
set ylabel 'accuracy'
set yrange [0.45:0.8]
set key top left Left reverse
plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)', $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy', 0.67 with lines dt 2 lw 1.5 lc rgb '#444444' title "markers' kNN (67%)", 0.5 with lines dt 3 lw 1.5 lc rgb '#444444' title "chance"
set autoscale y
unset multiplot
unset output
